/**
 * Attack: two gateway processes on one KV store. Each applies a key's RPM
 * from its own exact counts plus the other's as of its last refresh (≤ SOVRA_GATE_REFRESH_MS
 * old), so a burst split across both is admitted at most N · rpm times in a minute (README,
 * "Reliability"), and at least rpm times.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startProcessGateway } from "./process_gateway.ts";

const RPM = 20;

Deno.test("attack — a burst split across two processes on one store is admitted at most 2 × rpm", async () => {
  await using gw = await startProcessGateway({ models: [chatModel("acme/chat", "up")], rpm: RPM });
  const other = await gw.startAnother();
  const urls = [gw.url, other.url];
  const statuses = await Promise.all(Array.from({ length: 3 * RPM }, async (_, i) => {
    const res = await fetch(`${urls[i % 2]}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${gw.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/chat", messages: [{ role: "user", content: "hi" }] }),
    });
    await res.body?.cancel();
    return res.status;
  }));
  const admitted = statuses.filter((s) => s === 200).length;
  const limited = statuses.filter((s) => s === 429).length;
  assert.equal(admitted + limited, statuses.length, `statuses ${statuses.join(",")}`);
  assert.ok(admitted >= RPM, `admitted ${admitted}: at least the RPM`);
  assert.ok(admitted <= 2 * RPM, `admitted ${admitted}: at most N · rpm with N = 2`);
});
