/**
 * Spec "Organization balance" states and "Money": prepaid micro-EUR credit, debited per
 * request at catalog prices per million tokens; at or below zero → 402 before any upstream
 * call; a top-up makes requests succeed again.
 */
import assert from "node:assert/strict";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { chatBody, expectError, requestRows } from "../helpers/api.ts";
import type { RequestRecord } from "../../src/state/records.ts";

const PROMPT_PRICE = 1_234_567n;
const COMPLETION_PRICE = 3_000_001n;

const pricedModel = chatModel("acme/chat", "sim-chat", {
  pricing: {
    prompt_micro_eur_per_million: Number(PROMPT_PRICE),
    completion_micro_eur_per_million: Number(COMPLETION_PRICE),
  },
});

/** The spec's rule, computed here: ceil((prompt × price + completion × price) / 10⁶). */
function expectedCost(row: RequestRecord): number {
  assert.equal(typeof row.prompt_tokens, "number");
  assert.equal(typeof row.completion_tokens, "number");
  const numerator = BigInt(row.prompt_tokens!) * PROMPT_PRICE +
    BigInt(row.completion_tokens!) * COMPLETION_PRICE;
  return Number((numerator + 999_999n) / 1_000_000n);
}

async function orgShow(h: Harness): Promise<Record<string, unknown>> {
  return await h.admin(["org", "show"], { org: h.org });
}

Deno.test("credits — exact cost per request, balance = granted − Σ cost, 402 at ≤ 0, top-up restores", async () => {
  await using h = await startHarness({ models: [pricedModel], credits: 150 });
  let balance = Number((await orgShow(h)).balance_micro_eur);
  assert.equal(balance, 150);
  let sent = 0;
  while (balance > 0 && sent < 20) {
    const res = await h.post("/v1/chat/completions", chatBody("acme/chat", "How are you today"));
    assert.equal(res.status, 200, `request ${sent + 1} with balance ${balance}`);
    await res.body?.cancel();
    sent++;
    await h.flushed();
    balance = Number((await orgShow(h)).balance_micro_eur);
  }
  assert.ok(balance <= 0, "the balance never reached zero");

  const rows = await requestRows(h, sent);
  assert.equal(rows.length, sent);
  let total = 0;
  for (const row of rows) {
    assert.ok(row.cost_micro_eur > 0);
    assert.equal(row.cost_micro_eur, expectedCost(row), JSON.stringify(row));
    total += row.cost_micro_eur;
  }
  const shown = await orgShow(h);
  assert.equal(shown.balance_micro_eur, 150 - total);

  // At or below zero: 402 before any upstream call, streaming or not.
  const upstreamCalls = h.sim.requests.length;
  await expectError(
    await h.post("/v1/chat/completions", chatBody("acme/chat")),
    402,
    "insufficient_credits",
  );
  await expectError(
    await h.post("/v1/chat/completions", chatBody("acme/chat", "hi", { stream: true })),
    402,
    "insufficient_credits",
  );
  assert.equal(h.sim.requests.length, upstreamCalls, "a 402 request reached the upstream");
  await h.flushed();
  const listed = await h.store.listRequests(h.org, 1000);
  assert.equal(listed.filter((r) => r.status === 200).length, sent);
  // A 402 leaves a zero-cost row naming its code (the rest of that minute's are merged into one).
  const refused = listed.filter((r) => r.status === 402);
  assert.ok(refused.length >= 1);
  for (const r of refused) {
    assert.equal(r.cost_micro_eur, 0, "402s are not billed");
    assert.equal(r.error_code, "insufficient_credits");
  }

  const topped = await h.admin(["credits", "topup"], { org: h.org, "micro-eur": "1000" });
  assert.deepEqual(topped, { org: h.org, balance_micro_eur: 150 - total + 1000 });
  const again = await h.post("/v1/chat/completions", chatBody("acme/chat"));
  assert.equal(again.status, 200);
  await again.body?.cancel();
});

Deno.test("credits — an organization created with zero credit gets 402 at once", async () => {
  await using h = await startHarness({ models: [pricedModel] });
  const org = await h.admin(["org", "create"], { name: "Empty", "credits-micro-eur": "0" });
  assert.equal(org.balance_micro_eur, 0);
  const key = await h.admin(["key", "create"], { org: String(org.id) });
  const res = await h.post("/v1/chat/completions", chatBody("acme/chat"), {
    authorization: `Bearer ${String(key.key)}`,
  });
  await expectError(res, 402, "insufficient_credits");
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("credits — a streamed request is billed at the same exact price", async () => {
  await using h = await startHarness({ models: [pricedModel] });
  const stream = await h.client.chat.completions.create({
    model: "acme/chat",
    messages: [{ role: "user", content: "Tell me about the harbour" }],
    stream: true,
  });
  let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
  for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
  const [row] = await requestRows(h, 1);
  assert.ok(row && usage);
  assert.equal(row.stream, true);
  assert.equal(row.prompt_tokens, usage.prompt_tokens);
  assert.equal(row.completion_tokens, usage.completion_tokens);
  assert.equal(row.cost_micro_eur, expectedCost(row));
  const shown = await orgShow(h);
  assert.equal(shown.balance_micro_eur, 1_000_000_000 - row.cost_micro_eur);
});

Deno.test("credits — 200 concurrent debits: spent equals the sum of the recorded costs", async () => {
  await using h = await startHarness({ models: [pricedModel] });
  const responses = await Promise.all(
    Array.from(
      { length: 200 },
      (_, i) =>
        h.post(
          "/v1/chat/completions",
          chatBody("acme/chat", `question ${i} ${"x ".repeat(i % 7)}`),
        ),
    ),
  );
  const statuses = await Promise.all(responses.map(async (r) => {
    await r.body?.cancel();
    return r.status;
  }));
  assert.deepEqual(statuses.filter((s) => s !== 200), []);
  const rows = await requestRows(h, 200);
  assert.equal(rows.length, 200);
  assert.equal(new Set(rows.map((r) => r.id)).size, 200, "request ids repeat");
  let sum = 0;
  for (const row of rows) {
    assert.equal(row.cost_micro_eur, expectedCost(row));
    sum += row.cost_micro_eur;
  }
  const shown = await orgShow(h);
  assert.equal(shown.spent_micro_eur, sum);
  assert.equal(shown.balance_micro_eur, 1_000_000_000 - sum);
});
