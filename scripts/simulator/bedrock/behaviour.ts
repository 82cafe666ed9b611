/**
 * Scenario tokens of the rebuilding-route simulators (Bedrock and Vertex), read from the
 * upstream model name split on `+`, like the openai simulator's: `fail-<status>`,
 * `drop-after-<n>`, `silent` / `silent-after-<n>`, `no-usage`, `slow-<ms>`, `reasoning`
 * (think when thinking is requested), `redacted` (add a redacted thinking block when thinking
 * is requested), `exception-after-<n>` (n stream events, then an exception frame / `error`
 * event), `cached` (report cache read/write tokens), `google-fail-<status>` and
 * `array-fail-<status>` (Vertex: Google-shaped error, plain or array-wrapped).
 */

export interface RebuildingBehaviour {
  fail: number | undefined;
  googleFail: { status: number; array: boolean } | undefined;
  dropAfter: number | undefined;
  silentAfter: number | undefined;
  exceptionAfter: number | undefined;
  noUsage: boolean;
  slowMs: number;
  reasoning: boolean;
  redacted: boolean;
  cached: boolean;
}

export function behaviourOf(model: string): RebuildingBehaviour {
  const b: RebuildingBehaviour = {
    fail: undefined,
    googleFail: undefined,
    dropAfter: undefined,
    silentAfter: undefined,
    exceptionAfter: undefined,
    noUsage: false,
    slowMs: 0,
    reasoning: false,
    redacted: false,
    cached: false,
  };
  for (const token of model.split("+")) {
    if (token === "silent") b.silentAfter = 0;
    else if (token === "no-usage") b.noUsage = true;
    else if (token === "reasoning") b.reasoning = true;
    else if (token === "redacted") b.redacted = true;
    else if (token === "cached") b.cached = true;
    else {
      b.fail = numberAfter("fail-", token) ?? b.fail;
      const google = numberAfter("google-fail-", token);
      if (google !== undefined) b.googleFail = { status: google, array: false };
      const array = numberAfter("array-fail-", token);
      if (array !== undefined) b.googleFail = { status: array, array: true };
      b.dropAfter = numberAfter("drop-after-", token) ?? b.dropAfter;
      b.silentAfter = numberAfter("silent-after-", token) ?? b.silentAfter;
      b.exceptionAfter = numberAfter("exception-after-", token) ?? b.exceptionAfter;
      b.slowMs = numberAfter("slow-", token) ?? b.slowMs;
    }
  }
  return b;
}

function numberAfter(prefix: string, token: string): number | undefined {
  if (!token.startsWith(prefix)) return undefined;
  const digits = token.slice(prefix.length);
  return /^\d+$/.test(digits) ? Number(digits) : undefined;
}
