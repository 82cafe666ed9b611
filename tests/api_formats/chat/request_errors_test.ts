/**
 * The Errors table and Limits as they apply to POST /v1/chat/completions before any provider
 * is involved: malformed or oversize bodies, unknown/disabled/wrong-kind models, bad keys,
 * credits and the per-key rate limit. Plus billing's side of a success (the debit).
 */
import assert from "node:assert/strict";
import { chatModel } from "../../helpers/harness.ts";
import {
  assertErrorShape,
  onlyRow,
  requestRows,
  upstreamChatBodies,
  user,
  withHarness,
} from "../../helpers/chat.ts";

const MODEL = "acme/chat";
const messages = [user("Hello")];
const models = [
  chatModel(MODEL, "up"),
  chatModel("acme/off", "up", { state: "disabled" }),
  {
    id: "acme/embed",
    kind: "embedding" as const,
    routes: [{ provider: "sim-a", upstream_model: "emb" }],
  },
];

async function expectError(res: Response, status: number, code?: string): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assertErrorShape(JSON.parse(text), code);
}

Deno.test("POST /v1/chat/completions — malformed body, missing model and oversize body answer 400 invalid_request", () =>
  withHarness({ models }, async (h) => {
    await expectError(await h.post("/v1/chat/completions", "{not json"), 400, "invalid_request");
    await expectError(await h.post("/v1/chat/completions", { messages }), 400, "invalid_request");
    await expectError(await h.post("/v1/chat/completions", "[1,2]"), 400, "invalid_request");
    const big = "x".repeat(2 * 1024 * 1024);
    await expectError(
      await h.post("/v1/chat/completions", { model: MODEL, messages: [user(big)] }),
      400,
      "invalid_request",
    );
    assert.equal(upstreamChatBodies(h).length, 0, "nothing reached a provider");
  }));

Deno.test("POST /v1/chat/completions — a body just under 2 MiB is accepted", () =>
  withHarness({ models }, async (h) => {
    const text = "word ".repeat(Math.floor((2 * 1024 * 1024 - 200) / 5));
    const body = JSON.stringify({ model: MODEL, messages: [user(text)] });
    assert.ok(body.length < 2 * 1024 * 1024);
    const res = await h.post("/v1/chat/completions", body);
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  }));

Deno.test("POST /v1/chat/completions — unknown or disabled model answers 404 model_not_found", () =>
  withHarness({ models }, async (h) => {
    for (const model of ["acme/nope", "acme/off"]) {
      await expectError(
        await h.post("/v1/chat/completions", { model, messages }),
        404,
        "model_not_found",
      );
    }
    assert.equal(upstreamChatBodies(h).length, 0);
  }));

Deno.test("POST /v1/chat/completions — a model of another kind is rejected: 400 model_kind_mismatch", () =>
  withHarness({ models }, async (h) => {
    // The spec leaves the status and code open; the README documents this answer.
    await expectError(
      await h.post("/v1/chat/completions", { model: "acme/embed", messages }),
      400,
      "model_kind_mismatch",
    );
    assert.equal(h.sim.requests.length, 0);
  }));

Deno.test("POST /v1/chat/completions — a bad key answers 401", () =>
  withHarness({ models }, async (h) => {
    const bad = `sk-ex-${"A".repeat(43)}`;
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages }, {
      authorization: `Bearer ${bad}`,
    });
    assert.equal(res.status, 401);
    await res.body?.cancel();
    const none = await fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages }),
    });
    assert.equal(none.status, 401);
    await none.body?.cancel();
    assert.equal(h.sim.requests.length, 0);
  }));

Deno.test("POST /v1/chat/completions — a balance at or below zero answers 402 insufficient_credits", () =>
  withHarness({ models, credits: 1 }, async (h) => {
    const first = await h.post("/v1/chat/completions", { model: MODEL, messages });
    assert.equal(first.status, 200);
    await first.body?.cancel();
    await h.flushed();
    await expectError(
      await h.post("/v1/chat/completions", { model: MODEL, messages }),
      402,
      "insufficient_credits",
    );
    await h.admin(["credits", "topup"], { org: h.org, "micro-eur": "1000000" });
    const again = await h.post("/v1/chat/completions", { model: MODEL, messages });
    assert.equal(again.status, 200, "requests succeed again after a top-up");
    await again.body?.cancel();
  }));

Deno.test("POST /v1/chat/completions — the per-key RPM limit answers 429 rate_limit_exceeded", () =>
  withHarness({ models, rpm: 2 }, async (h) => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.post("/v1/chat/completions", { model: MODEL, messages });
      statuses.push(res.status);
      if (res.status === 429) await expectError(res, 429, "rate_limit_exceeded");
      else await res.body?.cancel();
    }
    assert.ok(statuses.includes(429), `statuses ${statuses.join(",")}`);
    assert.equal(upstreamChatBodies(h).length, statuses.filter((s) => s === 200).length);
  }));

// Regression: an increment already in KV must not be counted twice (it was: 200×9, 429, 200
// at rpm 10).
Deno.test({
  name: "POST /v1/chat/completions — exactly rpm requests pass per key, then 429",
  fn: () =>
    withHarness({ models, rpm: 5 }, async (h) => {
      for (let round = 0; round < 6; round++) {
        const key = await h.admin(["key", "create"], { org: h.org, rpm: "5" });
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) {
          const res = await h.post("/v1/chat/completions", { model: MODEL, messages }, {
            authorization: `Bearer ${key.key}`,
          });
          statuses.push(res.status);
          await res.body?.cancel();
        }
        assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429], `round ${round}`);
      }
    }),
});

Deno.test("POST /v1/chat/completions — a success debits its cost and records the end-user id", () =>
  withHarness({ models, credits: 5_000_000 }, async (h) => {
    const res = await h.post("/v1/chat/completions", {
      model: MODEL,
      messages,
      user: "end-user-42",
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const row = onlyRow(await requestRows(h));
    assert.equal(row.user, "end-user-42");
    assert.ok(row.cost_micro_eur > 0);
    const org = await h.admin(["org", "show"], { org: h.org });
    assert.equal(Number(org.balance_micro_eur), 5_000_000 - row.cost_micro_eur);
  }));
