/**
 * Scenario selection by upstream model name. The name is split on `+`; every token that names
 * a behaviour switches it on, every other token is ignored
 * (`mistral-small-2503+no-usage+slow-20`).
 */

export interface Behaviour {
  /** `fail-<status>` / `fail-<status>-raw`: answer this status instead of a result. */
  readonly fail: { readonly status: number; readonly raw: boolean } | undefined;
  /** `drop-after-<n>`: cut the connection after n stream chunks (non-stream: truncate). */
  readonly dropAfter: number | undefined;
  /** `silent` (0) / `silent-after-<n>`: stop sending after n stream chunks, keep it open. */
  readonly silentAfter: number | undefined;
  /** `no-usage`: never report usage. */
  readonly noUsage: boolean;
  /** `slow-<ms>`: wait before answering and between stream chunks. */
  readonly slowMs: number;
  /** `wait-<ms>`: wait before answering only (a whole stream then, like a model's first token). */
  readonly waitMs: number;
  /** `chunks-<n>`: number of streamed content chunks. */
  readonly chunks: number;
  /** `reasoning`: the model reasons even when the request does not ask for it. */
  readonly reasoning: boolean;
  /** `parallel`: call two tools when allowed. */
  readonly parallel: boolean;
  /** `16k`: speech at 16 kHz instead of 24 kHz. */
  readonly rate16k: boolean;
  /** `jailbreak-<percent>`: moderation: the `jailbreaking` score (0–100 %) of every input. */
  readonly jailbreakPercent: number | undefined;
  /** `retired`: the provider no longer serves this model (404, absent from `/v1/models`). */
  readonly retired: boolean;
}

export const DEFAULT_CHUNKS = 8;
const MAX_CHUNKS = 10_000;
const CACHE_LIMIT = 1_000;

const cache = new Map<string, Behaviour>();

/** Parses (and caches) the behaviour tokens of an upstream model name. */
export function behaviourOf(model: string): Behaviour {
  const cached = cache.get(model);
  if (cached !== undefined) return cached;
  const parsed = parse(model);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(model, parsed);
  return parsed;
}

function parse(model: string): Behaviour {
  let fail: Behaviour["fail"];
  let dropAfter: number | undefined;
  let silentAfter: number | undefined;
  let noUsage = false;
  let slowMs = 0;
  let waitMs = 0;
  let chunks = DEFAULT_CHUNKS;
  let reasoning = false;
  let parallel = false;
  let rate16k = false;
  let jailbreakPercent: number | undefined;
  let retired = false;
  for (const token of model.split("+")) {
    const failure = /^fail-(\d{3})(-raw)?$/.exec(token);
    if (failure !== null) {
      fail = { status: Number(failure[1]), raw: failure[2] !== undefined };
    } else if (token === "silent") {
      silentAfter = 0;
    } else if (token === "no-usage") {
      noUsage = true;
    } else if (token === "reasoning") {
      reasoning = true;
    } else if (token === "parallel") {
      parallel = true;
    } else if (token === "16k") {
      rate16k = true;
    } else if (token === "retired") {
      retired = true;
    } else {
      dropAfter = numberAfter("drop-after-", token) ?? dropAfter;
      silentAfter = numberAfter("silent-after-", token) ?? silentAfter;
      slowMs = numberAfter("slow-", token) ?? slowMs;
      waitMs = numberAfter("wait-", token) ?? waitMs;
      const jailbreak = numberAfter("jailbreak-", token);
      if (jailbreak !== undefined) jailbreakPercent = Math.min(jailbreak, 100);
      const n = numberAfter("chunks-", token);
      if (n !== undefined) chunks = Math.min(Math.max(n, 1), MAX_CHUNKS);
    }
  }
  return {
    fail,
    dropAfter,
    silentAfter,
    noUsage,
    slowMs,
    waitMs,
    chunks,
    reasoning,
    parallel,
    rate16k,
    jailbreakPercent,
    retired,
  };
}

function numberAfter(prefix: string, token: string): number | undefined {
  if (!token.startsWith(prefix)) return undefined;
  const digits = token.slice(prefix.length);
  return /^\d+$/.test(digits) ? Number(digits) : undefined;
}
