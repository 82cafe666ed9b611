/**
 * The guardrail's remote layer and the credit hold, through the HTTP stack:
 * the hold is placed before the classifier is asked, so a request the credit check refuses (402)
 * never reaches the classifier, and the hold of a request the remote layer refuses is released
 * exactly (not billed, a zero-cost metadata row). The classifier is the simulator's
 * `/v1/moderations`; its request log proves what was sent.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import {
  borderlineText,
  errorBody,
  moderationModel,
  type PolicyHarness,
  startPolicyHarness,
} from "./policy_support.ts";
import { rateName } from "../../src/limits/gate_state.ts";
import { minuteOf } from "../../src/state/minute.ts";
import { until } from "../helpers/until.ts";

/** µEUR per token of `chatModel`'s default pricing. */
const PROMPT_PER_TOKEN = 1;
const COMPLETION_PER_TOKEN = 3;
/** Completion tokens held when neither the request nor the model caps the answer. */
const DEFAULT_HELD_COMPLETION = 4_096;

const { text: BORDERLINE } = borderlineText();

const MODELS = [
  chatModel("acme/chat", "sim-chat"),
  chatModel("acme/slow", "sim-chat+slow-3000"),
  moderationModel("acme/guard-clean", "guard+jailbreak-2"),
  moderationModel("acme/guard-jailbreak", "guard+jailbreak-97+slow-1500"),
  moderationModel("acme/guard-slow", "guard+slow-3000"),
];

function borderlineChat() {
  return {
    model: "acme/chat",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: BORDERLINE },
    ],
  };
}

/** The hold of `borderlineChat()`: (3 + 3·2 + characters) prompt + the default completion cap. */
const BORDERLINE_HOLD = BigInt(
  (9 + "Be brief.".length + BORDERLINE.length) * PROMPT_PER_TOKEN +
    DEFAULT_HELD_COMPLETION * COMPLETION_PER_TOKEN,
);

const paths = (h: PolicyHarness) => h.sim.requests.map((r) => r.path);

/** Requests of the harness's key that passed the gate (its in-memory rate increments). */
function gatePassed(h: PolicyHarness): number {
  const minute = minuteOf(Date.now());
  let sum = 0n;
  for (const m of [minute - 1, minute, minute + 1]) {
    sum += h.gateway.deps.unsentRequests.unsentSince(rateName(h.keyId, m), 0n);
  }
  return Number(sum);
}

async function balanceOf(h: PolicyHarness): Promise<number> {
  await h.flushed();
  return (await h.store.getOrg(h.org))!.balance_micro_eur;
}

Deno.test("guardrail remote — a borderline request the credit check refuses gets 402 and never reaches the classifier", async () => {
  const credits = 5_000;
  const h = await startPolicyHarness(MODELS, { credits });
  const holds = h.gateway.deps.gate.holds;
  try {
    await h.setPolicy({
      guardrail: "block",
      guardrail_remote: { model: "acme/guard-clean", timeout_ms: 1500, on_error: "open" },
    });
    // B, the borderline request, passes the gate while nothing is held (its body still coming).
    const encoder = new TextEncoder();
    const body = JSON.stringify(borderlineChat());
    let sendRest!: () => void;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(body.slice(0, 8)));
        sendRest = () => {
          controller.enqueue(encoder.encode(body.slice(8)));
          controller.close();
        };
      },
    });
    const b = fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: stream,
    });
    await until("B passed the gate", () => gatePassed(h) === 1);
    // A, a benign slow request, then holds more than the whole balance (30,000+ µEUR).
    const a = h.post("/v1/chat/completions", {
      model: "acme/slow",
      max_tokens: 10_000,
      messages: [{ role: "user", content: "Hello" }],
    });
    a.catch(() => {}); // awaited below; a failed assertion first must not leave it unhandled
    await until("A holds its credit", () => holds.open === 1);
    const heldByA = holds.total;
    assert.ok(heldByA > BigInt(credits), `A holds ${heldByA}`);
    // B's body arrives: its hold is refused before the classifier is asked.
    sendRest();
    const refused = await b;
    assert.equal(refused.status, 402);
    assert.equal((await errorBody(refused)).code, "insufficient_credits");
    assert.equal(holds.total, heldByA, "B holds nothing");
    assert.ok(!paths(h).includes("/v1/moderations"), "the classifier saw no request");

    const served = await a;
    assert.equal(served.status, 200);
    await served.text();
    await until("every hold released", () => holds.open === 0);
    assert.equal(holds.total, 0n);
    assert.deepEqual(paths(h), ["/v1/chat/completions"], "only A went upstream");
    // Money exact: the balance is the credit less A's cost; B left only its zero-cost refusal.
    const balance = await balanceOf(h);
    const rows = await h.store.listRequests(h.org, 10);
    assert.deepEqual(
      rows.map((r) => [r.status, r.requested_model, r.error_code]).sort(),
      [[200, "acme/slow", undefined], [402, "acme/chat", "insufficient_credits"]],
    );
    const billed = rows.find((r) => r.status === 200)!;
    assert.ok(billed.cost_micro_eur > 0);
    assert.equal(rows.find((r) => r.status === 402)!.cost_micro_eur, 0);
    assert.equal(balance, credits - billed.cost_micro_eur);
  } finally {
    await h.close();
  }
});

for (
  const [model, status, code, timeout_ms] of [
    ["acme/guard-slow", 503, "guardrail_unavailable", 1000],
    ["acme/guard-jailbreak", 400, "prompt_injection_detected", 5000],
  ] as const
) {
  Deno.test(`guardrail remote — the credit hold covers the classifier's wait and is released exactly on a remote ${status}`, async () => {
    const credits = 1_000_000;
    const h = await startPolicyHarness(MODELS, { credits });
    const holds = h.gateway.deps.gate.holds;
    try {
      await h.setPolicy({
        guardrail: "block",
        guardrail_remote: { model, timeout_ms, on_error: "closed" },
      });
      const response = h.post("/v1/chat/completions", borderlineChat());
      await until("the classifier asked", () => paths(h).includes("/v1/moderations"));
      // The hold was placed before the call (the request's own estimate, nothing more).
      assert.equal(holds.open, 1);
      assert.equal(holds.total, BORDERLINE_HOLD);
      const refused = await response;
      assert.equal(refused.status, status);
      assert.equal((await errorBody(refused)).code, code);
      await until("the hold released", () => holds.open === 0);
      assert.equal(holds.total, 0n);
      assert.deepEqual(paths(h), ["/v1/moderations"], "the chat model was never called");
      assert.equal(await balanceOf(h), credits, "not billed");
      const rows = await h.store.listRequests(h.org, 10);
      assert.equal(rows.length, 1, "one metadata row");
      assert.equal(rows[0]!.status, status);
      assert.equal(rows[0]!.cost_micro_eur, 0);
      assert.equal(rows[0]!.guardrail?.layer, "remote");
      // Nothing is left for crash recovery to bill (no open admission record).
      assert.equal(await h.store.recoverAdmissions("test", Date.now() + 86_400_000), 0);
    } finally {
      await h.close();
    }
  });
}

Deno.test("guardrail remote — a client that leaves during the classifier's wait leaves no hold, no debit, and a 499 row", async () => {
  const credits = 1_000_000;
  const h = await startPolicyHarness(MODELS, { credits });
  const holds = h.gateway.deps.gate.holds;
  try {
    await h.setPolicy({
      guardrail: "block",
      guardrail_remote: { model: "acme/guard-slow", timeout_ms: 5000, on_error: "closed" },
    });
    const abort = new AbortController();
    const response = fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: JSON.stringify(borderlineChat()),
      signal: abort.signal,
    });
    await until("the classifier asked", () => paths(h).includes("/v1/moderations"));
    assert.equal(holds.total, BORDERLINE_HOLD);
    abort.abort();
    await response.catch(() => {});
    await until("the hold released", () => holds.open === 0);
    assert.equal(holds.total, 0n);
    assert.equal(await balanceOf(h), credits);
    assert.deepEqual(paths(h), ["/v1/moderations"]);
    // The text reached the classifier's provider: the request leaves its metadata row (499,
    // cost 0), and the note says the classifier was asked and the client left first.
    const rows = await h.store.listRequests(h.org, 10);
    assert.equal(rows.length, 1, "one metadata row");
    assert.equal(rows[0]!.status, 499);
    assert.equal(rows[0]!.cost_micro_eur, 0);
    assert.equal(rows[0]!.guardrail?.remote?.verdict, "cancelled");
    assert.equal(rows[0]!.guardrail?.remote?.model, "acme/guard-slow");
  } finally {
    await h.close();
  }
});

Deno.test("guardrail remote — during the classifier's wait no admission record exists, so a crash then bills nothing", async () => {
  const credits = 1_000_000;
  const h = await startPolicyHarness(MODELS, { credits });
  try {
    await h.setPolicy({
      guardrail: "block",
      guardrail_remote: { model: "acme/guard-slow", timeout_ms: 2000, on_error: "closed" },
    });
    const response = h.post("/v1/chat/completions", borderlineChat());
    response.catch(() => {}); // awaited below
    await until("the classifier asked", () => paths(h).includes("/v1/moderations"));
    // What recovery would find if this process died now (its lease seen as run out): nothing.
    await h.flushed();
    assert.equal(await h.store.recoverAdmissions("test", Date.now() + 86_400_000), 0);
    assert.equal(await balanceOf(h), credits, "nothing billed from an estimate");
    const refused = await response;
    assert.equal(refused.status, 503);
    await refused.body?.cancel();
  } finally {
    await h.close();
  }
});
