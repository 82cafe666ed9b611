/**
 * `settleRequest` / `settleFailure` (src/pipeline/settle_request.ts): the one mapping from a
 * request to its metadata row and bill, for chat and non-chat endpoints alike. Runs the real
 * Settler on a real Deno KV store.
 */
import assert from "node:assert/strict";
import { openTestStore } from "../helpers/kv.ts";
import { Settler } from "../../src/billing/settle.ts";
import { UnsentTally } from "../../src/limits/unsent_tally.ts";
import { createLogger } from "../../src/log.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";
import type { Model } from "../../src/catalog/schema.ts";
import { invalidRequest } from "../../src/errors.ts";
import { UpstreamFailure } from "../../src/providers/upstream_failure.ts";
import {
  type RequestSettlement,
  settleFailure,
  settleRequest,
} from "../../src/pipeline/settle_request.ts";

function model(id: string, pricing: Model["pricing"], kind: Model["kind"] = "chat"): Model {
  return {
    id,
    kind,
    state: "active",
    sovereignty: "strict",
    pricing,
    supported_parameters: [],
    routes: [{ provider: "p", upstream_model: `${id}-upstream` }],
  };
}

function routeOf(m: Model): ResolvedRoute {
  return {
    providerId: "p",
    provider: {
      dialect: "openai",
      base_url: "http://127.0.0.1:1",
      zdr: false,
      unsupported_parameters: [],
    },
    route: m.routes[0]!,
    dialect: "openai",
    model: m,
  };
}

/** A real KV store, a real Settler and the log lines, released at the end of the scope. */
async function settling() {
  const store = await openTestStore();
  const lines: Record<string, unknown>[] = [];
  const log = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const settler = new Settler(store, log, new UnsentTally());
  const org = await store.createOrg(
    { id: "org_settle", name: "acme", created: new Date().toISOString() },
    1_000_000n,
  );
  return {
    deps: { settler, log },
    lines,
    org: org.id,
    /** The rows of the organization, once every settle is written. */
    async rows() {
      await settler.idle();
      await store.flushed();
      return await store.listRequests(org.id, 10);
    },
    async [Symbol.asyncDispose]() {
      await settler.idle();
      await store[Symbol.asyncDispose]();
    },
  };
}

function base(org: string, id: string): Omit<RequestSettlement, "served" | "status" | "stream"> {
  return {
    caller: { requestId: id, startedAt: Date.now(), org, keyId: "key_1" },
    endpoint: "chat",
    requestedModel: "router/cheap",
    user: "end-user-1",
  };
}

Deno.test("settleRequest — a routed answer names and prices the catalog model that served", async () => {
  await using s = await settling();
  const served = model("acme/small", {
    prompt_micro_eur_per_million: 1_000_000,
    completion_micro_eur_per_million: 2_000_000,
  });
  settleRequest(s.deps, {
    ...base(s.org, "req_1"),
    served: { route: routeOf(served), fallbacks: 1, routing: { policy: "cheap", reason: "r" } },
    status: 200,
    stream: true,
    consumed: Promise.resolve({
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      estimated: false,
    }),
  });
  const [row] = await s.rows();
  assert.equal(row?.served_model, "acme/small");
  assert.equal(row?.routing_policy, "cheap");
  assert.equal(row?.requested_model, "router/cheap");
  assert.equal(row?.provider, "p");
  assert.equal(row?.fallbacks, 1);
  assert.equal(row?.stream, true);
  assert.equal(row?.user, "end-user-1");
  assert.equal(row?.cost_micro_eur, 20); // 10 × 1 + 5 × 2
});

Deno.test("settleRequest — non-chat consumption (characters) is priced on the served route", async () => {
  await using s = await settling();
  const speech = model("acme/tts", { character_micro_eur_per_million: 3_000_000 }, "speech");
  settleRequest(s.deps, {
    ...base(s.org, "req_2"),
    endpoint: "speech",
    requestedModel: "acme/tts",
    served: { route: routeOf(speech), fallbacks: 0 },
    status: 200,
    stream: false,
    consumed: { characters: 7 },
  });
  const [row] = await s.rows();
  assert.equal(row?.served_model, "acme/tts");
  assert.equal(row?.characters, 7);
  assert.equal(row?.cost_micro_eur, 21);
  assert.equal(row?.routing_policy, undefined);
});

Deno.test("settleRequest — a failed usage estimate still writes the row, without counts", async () => {
  await using s = await settling();
  settleRequest(s.deps, {
    ...base(s.org, "req_3"),
    served: { route: routeOf(model("acme/m", { prompt_micro_eur_per_million: 1 })), fallbacks: 0 },
    status: 200,
    stream: false,
    consumed: Promise.reject(new Error("tokenizer broke")),
  });
  const [row] = await s.rows();
  assert.equal(row?.id, "req_3");
  assert.equal(row?.prompt_tokens, null);
  assert.equal(row?.cost_micro_eur, 0);
  assert.ok(s.lines.some((l) => l.msg === "usage estimate failed; settling without token counts"));
});

Deno.test("settleRequest — a finish reason no mapper knows is logged with its raw value", async () => {
  await using s = await settling();
  settleRequest(s.deps, {
    ...base(s.org, "req_4"),
    served: { route: routeOf(model("acme/m", {})), fallbacks: 0 },
    status: 200,
    stream: false,
    consumed: { promptTokens: 1, completionTokens: 1 },
    finish: { reason: "other", raw: "model_length" },
  });
  await s.rows();
  const line = s.lines.find((l) => l.msg === "upstream finish reason not recognised");
  assert.equal(line?.raw, "model_length");
  assert.equal(line?.request_id, "req_4");
});

Deno.test("settleFailure — a provider reached leaves a zero-cost row; a request error refused before any call none", async () => {
  await using s = await settling();
  const tried = {
    route: routeOf(model("acme/m", { prompt_micro_eur_per_million: 1 })),
    fallbacks: 1,
  };
  settleFailure(
    s.deps,
    { ...base(s.org, "req_5"), served: tried, stream: false },
    new UpstreamFailure("unavailable", "down"),
  );
  settleFailure(
    s.deps,
    { ...base(s.org, "req_6"), served: undefined, stream: false },
    invalidRequest("bad", "messages"),
  );
  const rows = await s.rows();
  assert.deepEqual(rows.map((r) => r.id), ["req_5"]);
  assert.equal(rows[0]?.cost_micro_eur, 0);
  assert.equal(rows[0]?.provider, "p");
  assert.equal(rows[0]?.status, 500);
});
