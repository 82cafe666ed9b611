/**
 * Catalog lifecycle (`deprecated_on`, `retires_on`, `successor` on models and routes): from its
 * `retires_on` day (UTC) a model is off — not listed, 404 `model_not_found` naming its successor —
 * and a retired route is no longer tried; a deprecated model is still served and listed with its
 * dates; the gateway warns at start.
 */
import assert from "node:assert/strict";
import { Catalog } from "../../src/catalog/catalog.ts";
import type { Model } from "../../src/catalog/schema.ts";
import { GatewayError } from "../../src/errors.ts";
import { lifecycleNotices, todayUtc } from "../../src/catalog/lifecycle.ts";
import { PROVIDERS } from "../routing/plan_fixtures.ts";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { configFromEnv } from "../../src/config.ts";
import { startGateway } from "../../src/gateway.ts";
import { createLogger } from "../../src/log.ts";

const DAY = Date.parse("2026-06-01T12:00:00Z");

function model(id: string, extra: Partial<Model> = {}): Model {
  return {
    id,
    kind: "chat",
    state: "active",
    sovereignty: "strict",
    pricing: {},
    supported_parameters: [],
    routes: [{ provider: "oa-1", upstream_model: id }],
    ...extra,
  } as Model;
}

function catalogAt(now: number, models: Model[]): Catalog {
  return new Catalog(PROVIDERS, models, {}, () => now);
}

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    return error;
  }
  assert.fail("expected a GatewayError");
}

Deno.test("lifecycle — from retires_on on, a model is off: not listed, 404 naming its successor", () => {
  const old = model("acme/old", { retires_on: "2026-06-01", successor: "acme/new" });
  const next = model("acme/new");
  const before = catalogAt(Date.parse("2026-05-31T23:59:59Z"), [old, next]);
  assert.equal(before.requireModel("acme/old", "chat"), old);
  assert.deepEqual(before.activeModels().map((m) => m.id), ["acme/old", "acme/new"]);

  const on = catalogAt(DAY, [old, next]);
  assert.deepEqual(on.activeModels().map((m) => m.id), ["acme/new"]);
  const error = refusal(() => on.requireModel("acme/old", "chat"));
  assert.equal(error.status, 404);
  assert.equal(error.code, "model_not_found");
  assert.match(error.message, /retired on 2026-06-01; use 'acme\/new' instead/);
});

Deno.test("lifecycle — the clock crossing midnight retires without a reload", () => {
  let now = Date.parse("2026-05-31T23:59:00Z");
  const catalog = new Catalog(
    PROVIDERS,
    [model("acme/old", { retires_on: "2026-06-01" })],
    {},
    () => now,
  );
  assert.equal(catalog.activeModels().length, 1);
  now += 120_000;
  assert.equal(catalog.activeModels().length, 0);
});

Deno.test("lifecycle — a retired route is not tried; all routes retired retires the model", () => {
  const two = model("acme/two", {
    routes: [
      { provider: "oa-1", upstream_model: "gone", retires_on: "2026-05-01" },
      { provider: "oa-2", upstream_model: "kept" },
    ],
  });
  const none = model("acme/none", {
    successor: "acme/two",
    routes: [{ provider: "oa-1", upstream_model: "gone", retires_on: "2026-05-01" }],
  });
  const catalog = catalogAt(DAY, [two, none]);
  assert.deepEqual(catalog.routesOf(two).map((r) => r.route.upstream_model), ["kept"]);
  assert.equal(catalog.allRoutesOf(two).length, 2);
  assert.match(refusal(() => catalog.requireModel("acme/none", "chat")).message, /use 'acme\/two'/);
});

Deno.test("lifecycle — a disabled model with a successor names it; without one it is the plain 404", () => {
  const catalog = catalogAt(DAY, [
    model("acme/off", { state: "disabled", successor: "acme/on" }),
    model("acme/gone", { state: "disabled" }),
    model("acme/on"),
  ]);
  assert.match(refusal(() => catalog.requireModel("acme/off", "chat")).message, /use 'acme\/on'/);
  const plain = refusal(() => catalog.requireModel("acme/gone", "chat"));
  assert.equal(plain.code, "model_not_found");
  assert.doesNotMatch(plain.message, /use '/);
});

Deno.test("lifecycleNotices — retired, deprecated and retiring active models and routes", () => {
  const notices = lifecycleNotices([
    model("acme/dep", {
      deprecated_on: "2026-01-01",
      retires_on: "2026-09-01",
      successor: "acme/x",
    }),
    model("acme/soon", { retires_on: "2027-01-01" }),
    model("acme/past", { retires_on: "2026-05-01" }),
    model("acme/off", { state: "disabled", retires_on: "2026-05-01" }),
    model("acme/r", {
      routes: [{ provider: "oa-1", upstream_model: "u", deprecated_on: "2026-02-02" }],
    }),
  ], "2026-06-01");
  assert.deepEqual(notices.map((n) => [n.subject, n.state]), [
    ["model 'acme/dep'", "deprecated"],
    ["model 'acme/soon'", "retiring"],
    ["model 'acme/past'", "retired"],
    ["route oa-1/u of 'acme/r'", "deprecated"],
  ]);
  assert.match(
    notices[0]!.message,
    /deprecated on 2026-01-01, retires on 2026-09-01; successor 'acme\/x'/,
  );
});

Deno.test("GET /v1/models — lifecycle fields as additions; a retired model is not listed", async () => {
  await using h = await startHarness({
    models: [
      chatModel("acme/dep", "sim-dep", {
        deprecated_on: "2026-01-15",
        retires_on: "2999-01-01",
        successor: "acme/new",
      }),
      chatModel("acme/new", "sim-new"),
      chatModel("acme/old", "sim-old", { retires_on: "2000-01-01", successor: "acme/new" }),
    ],
  });
  const list = await (await fetch(`${h.url}/v1/models`, {
    headers: { authorization: `Bearer ${h.key}` },
  })).json();
  const byId = new Map(list.data.map((m: { id: string }) => [m.id, m]));
  assert.deepEqual([...byId.keys()].sort(), ["acme/dep", "acme/new"]);
  const dep = byId.get("acme/dep") as Record<string, unknown>;
  assert.equal(dep.deprecated_on, "2026-01-15");
  assert.equal(dep.retires_on, "2999-01-01");
  assert.equal(dep.successor, "acme/new");
  assert.equal("deprecated_on" in (byId.get("acme/new") as object), false);
  const old = await h.post("/v1/chat/completions", {
    model: "acme/old",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(old.status, 404);
  assert.match((await old.json()).error.message, /retired on 2000-01-01; use 'acme\/new'/);
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("gateway start — one warning per deprecated or retiring catalog entry", async () => {
  await using h = await startHarness({ models: [chatModel("acme/plain", "sim-plain")] });
  const models = [
    chatModel("acme/dep", "sim-dep", { deprecated_on: "2026-01-15", successor: "acme/plain" }),
    chatModel("acme/plain", "sim-plain"),
  ].map((m) => ({ sovereignty: "strict", ...m }));
  await Deno.writeTextFile(`${h.catalogDir}/models.json`, JSON.stringify({ version: 1, models }));
  const lines: string[] = [];
  const gateway = await startGateway(
    configFromEnv({
      SOVRA_PORT: "0",
      SOVRA_KV: `${h.kvPath}.second`,
      SOVRA_CATALOG: h.catalogDir,
      SIM_KEY: "x",
      SOVRA_ALLOW_LOCAL_UPSTREAMS: "true",
    }),
    { log: createLogger("warn", (line) => lines.push(line)) },
  );
  await gateway.close();
  await Deno.remove(`${h.kvPath}.second`).catch(() => {});
  const lifecycle = lines.map((l) => JSON.parse(l)).filter((l) =>
    l.msg.startsWith("catalog lifecycle")
  );
  assert.equal(lifecycle.length, 1);
  assert.match(
    lifecycle[0].msg,
    /model 'acme\/dep' deprecated on 2026-01-15; successor 'acme\/plain'/,
  );
  assert.equal(lifecycle[0].state, "deprecated");
});

Deno.test("todayUtc — the UTC day of any instant, in any order, across midnight and the epoch", () => {
  const at = (iso: string) => todayUtc(Date.parse(iso));
  assert.equal(at("2026-12-02T23:59:59.999Z"), "2026-12-02");
  assert.equal(at("2026-12-03T00:00:00.000Z"), "2026-12-03");
  assert.equal(at("2026-12-02T00:00:00.000Z"), "2026-12-02");
  assert.equal(at("2026-12-01T23:59:59.999Z"), "2026-12-01");
  assert.equal(at("2026-12-03T00:00:00.000Z"), "2026-12-03");
  assert.equal(at("1970-01-01T00:00:00.000Z"), "1970-01-01");
  assert.equal(at("1969-12-31T23:59:59.999Z"), "1969-12-31");
  assert.equal(at("1970-01-01T00:00:00.001Z"), "1970-01-01");
  assert.equal(todayUtc(DAY + 0.5), "2026-06-01");
});
