/**
 * Small helpers shared by the HTTP and CLI tests (written from the spec and the operator
 * contract): error-object checks, a movable clock, the admin CLI as a real subprocess.
 */
import assert from "node:assert/strict";
import type { Harness } from "./harness.ts";
import type { RequestRecord } from "../../src/state/records.ts";

export const REPO_ROOT = new URL("../../", import.meta.url).pathname;

/** Asserts the spec's error object `{error:{message,type,code}}` and returns it. */
export async function expectError(
  response: Response,
  status: number,
  code?: string,
): Promise<{ message: string; type: string; code: string; text: string }> {
  const text = await response.text();
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${text}`);
  const body = JSON.parse(text) as { error?: Record<string, unknown> };
  assert.ok(body.error && typeof body.error === "object", `no error object in ${text}`);
  const { message, type } = body.error;
  assert.equal(typeof message, "string");
  assert.ok((message as string).length > 0);
  assert.equal(typeof type, "string");
  assert.equal(typeof body.error.code, "string", `error.code must be a string in ${text}`);
  if (code !== undefined) assert.equal(body.error.code, code);
  return {
    message: message as string,
    type: type as string,
    code: body.error.code as string,
    text,
  };
}

/** A clock the test moves by hand (the gateway's `now`). Starts just after a minute began. */
export class ManualClock {
  t: number;
  constructor(start = Math.floor(Date.now() / 60_000) * 60_000 + 1_000) {
    this.t = start;
  }
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Shuts a harness down whose KV handle a test already closed (the store would close it twice). */
export async function closeWithoutKv(h: Harness): Promise<void> {
  await h.gateway.close().catch(() => {});
  await h.sim.close();
  await Deno.remove(h.catalogDir, { recursive: true });
  await Deno.remove(h.kvPath.replace(/\/[^/]*$/, ""), { recursive: true });
}

export function getWithKey(url: string, key: string | undefined): Promise<Response> {
  return fetch(url, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
}

export function chatBody(model: string, content = "Hello there", extra: object = {}) {
  return { model, messages: [{ role: "user", content }], ...extra };
}

/** Waits until `count` request rows of the org are durable (streams settle at their end). */
export async function requestRows(h: Harness, count: number): Promise<RequestRecord[]> {
  for (let i = 0; i < 100; i++) {
    await h.flushed();
    const rows = await h.store.listRequests(h.org, 1000);
    if (rows.length >= count) return rows;
    await new Promise((r) => setTimeout(r, 10));
  }
  return await h.store.listRequests(h.org, 1000);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `deno run -A scripts/admin.ts …` as a real subprocess against the KV file `kvPath`. */
export function runAdminCli(kvPath: string, args: string[]): Promise<CliResult> {
  return runAdminCliWith({ SOVRA_KV: kvPath }, args);
}

/** The admin CLI as a real subprocess with the given state environment (KV or PostgreSQL). */
export async function runAdminCliWith(
  env: Record<string, string>,
  args: string[],
): Promise<CliResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/admin.ts", ...args],
    cwd: REPO_ROOT,
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** JSON lines → objects (every non-empty line must be one JSON object). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text.split("\n").filter((l) => l.trim() !== "").map((line) => {
    const value = JSON.parse(line) as unknown;
    assert.ok(
      value && typeof value === "object" && !Array.isArray(value),
      `not an object: ${line}`,
    );
    return value as Record<string, unknown>;
  });
}
