/**
 * Attack: unbroken text makes a BPE tokenizer quadratic. Streamed requests
 * whose content is "ab" × 128,000, closed after the first bytes, are estimated (the provider
 * reports no usage) while `/healthz` must keep answering within seconds. The gateway runs in
 * its own process, so its main thread cannot stall the probes.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { healthzWithin, startProcessGateway } from "./process_gateway.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { closing } from "../helpers/dispose.ts";

const MODEL = "acme/quiet";
const LIVENESS_BOUND_MS = 3_000;

Deno.test("attack — unbroken 256 KB prompts closed early: /healthz answers within seconds, each is billed", async () => {
  await using gw = await startProcessGateway({ models: [chatModel(MODEL, "up+no-usage+slow-50")] });
  const content = "ab".repeat(128_000);
  await Promise.all(Array.from({ length: 4 }, async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${gw.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: "user", content }] }),
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read(); // the first bytes, then leave
    await reader.cancel();
  }));
  // The estimates run now; a probe must not wait for them: probe until all four are billed.
  await using store = closing(await openKvStore(gw.kvPath));
  const probes: boolean[] = [];
  const deadline = Date.now() + 20_000;
  let rows = [];
  do {
    probes.push(await healthzWithin(gw.url, LIVENESS_BOUND_MS));
    rows = await store.listRequests(gw.org, 10);
  } while (rows.length < 4 && Date.now() < deadline);
  assert.deepEqual(probes, probes.map(() => true), "every /healthz probe answered");
  assert.equal(rows.length, 4);
  for (const row of rows) {
    assert.equal(row.estimated, true);
    // Linear, not truncated: "ab" × 128,000 is tens of thousands of tokens.
    assert.ok((row.prompt_tokens ?? 0) > 10_000, `prompt tokens ${row.prompt_tokens}`);
    assert.ok(row.cost_micro_eur > 0);
  }
});

Deno.test("estimate — a long ordinary text is sampled within 5 % of its exact count", async () => {
  const { countTextTokens } = await import("../../src/billing/tokenizer.ts");
  const { countTokens } = await import("gpt-tokenizer");
  const words = ["harbour", "boats", "left", "early,", "the", "weather", "was", "calm", "and"];
  const text = Array.from({ length: 60_000 }, (_, i) => words[(i * 7) % words.length]).join(" ");
  const exact = countTokens(text);
  const estimate = await countTextTokens(text);
  assert.ok(Math.abs(estimate - exact) / exact < 0.05, `estimate ${estimate}, exact ${exact}`);
});
