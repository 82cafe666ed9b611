/**
 * `RefusedRows`' merging of the gate's refusals (src/billing/refused_rows.ts): per key, error
 * code and minute, the first row is written at once and the rest as one row with
 * `refused_count`, by the timer just after the minute ends; another code or minute is apart.
 */
import assert from "node:assert/strict";
import { type RefusedRequest, RefusedRows } from "../../src/billing/refused_rows.ts";
import type { SettleInput } from "../../src/billing/settle.ts";

function recorder() {
  const settled: SettleInput[] = [];
  let notify = () => {};
  return {
    settled,
    settler: {
      settle(input: SettleInput | Promise<SettleInput>) {
        settled.push(input as SettleInput);
        notify();
        return Promise.resolve(undefined);
      },
    },
    /** Resolves once `n` rows were settled. */
    until(n: number) {
      return new Promise<void>((resolve) => {
        notify = () => settled.length >= n && resolve();
        notify();
      });
    },
  };
}

Deno.test("RefusedRows — a minute's refusals of one key and code: the first at once, the rest in one row when the minute ends", async () => {
  // 300 ms before a minute ends: the merge timer fires just after it.
  const offset = (Math.ceil(Date.now() / 60_000) * 60_000 - 300) - Date.now() + 60_000;
  const now = () => Date.now() + offset;
  const r = recorder();
  const rows = new RefusedRows(r.settler, now);
  const refusal = (i: number, keyId: string, errorCode: string): RefusedRequest => ({
    requestId: `req_${keyId}_${errorCode}_${i}`,
    startedAt: now(),
    endedAt: now() + 1,
    org: "org_a",
    keyId,
    endpoint: "chat",
    requestedModel: "",
    user: undefined,
    stream: false,
    status: errorCode === "rate_limit_exceeded" ? 429 : 402,
    errorCode,
  });
  for (let i = 0; i < 25; i++) rows.recordCoalesced(refusal(i, "key_a", "rate_limit_exceeded"));
  for (let i = 0; i < 3; i++) rows.recordCoalesced(refusal(i, "key_a", "insufficient_credits"));
  rows.recordCoalesced(refusal(0, "key_b", "rate_limit_exceeded"));
  assert.deepEqual(r.settled.map((s) => [s.id, s.refusedCount]), [
    ["req_key_a_rate_limit_exceeded_0", undefined],
    ["req_key_a_insufficient_credits_0", undefined],
    ["req_key_b_rate_limit_exceeded_0", undefined],
  ]);
  // The merge timer keeps no process alive (unref): this one does, while the test waits.
  const alive = setInterval(() => {}, 1_000);
  await r.until(5);
  clearInterval(alive);
  const merged = r.settled.slice(3).map((s) => [s.id, s.refusedCount, s.errorCode, s.status]);
  assert.deepEqual(merged.sort(), [
    ["req_key_a_insufficient_credits_1", 2, "insufficient_credits", 402],
    ["req_key_a_rate_limit_exceeded_1", 24, "rate_limit_exceeded", 429],
  ]);
  // The next minute starts afresh: its first refusal has its own row at once.
  rows.recordCoalesced(refusal(99, "key_a", "rate_limit_exceeded"));
  assert.equal(r.settled.at(-1)!.id, "req_key_a_rate_limit_exceeded_99");
  assert.equal(r.settled.at(-1)!.refusedCount, undefined);
  rows.flush(true);
  assert.equal(r.settled.length, 6, "nothing merged is left to write");
});
