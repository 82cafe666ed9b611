/** Regressions for defects found in the code review. */
import assert from "node:assert/strict";
import { mergeUsage } from "../../src/canonical/usage.ts";
import { GroupCommitter } from "../../src/state/kv/group_commit.ts";
import { createTokenSource } from "../../src/providers/vertex_anthropic/token_source.ts";
import { startVertexSimulator } from "../../scripts/simulator/vertex/mod.ts";
import { chatModel, startHarness } from "../helpers/harness.ts";

Deno.test("mergeUsage — a later partial report never erases a known count", () => {
  const known = mergeUsage(undefined, { promptTokens: 12, completionTokens: undefined });
  const merged = mergeUsage(known, { promptTokens: undefined, completionTokens: 30 });
  assert.deepEqual(merged, { promptTokens: 12, completionTokens: 30 });
});

Deno.test("GroupCommitter — one write over a KV limit fails alone; its batch mates commit", async () => {
  using kv = await Deno.openKv(":memory:");
  const writer = new GroupCommitter(kv);
  const results = await Promise.allSettled([
    writer.write([{ type: "set", key: ["ok", 1], value: "a" }], 8),
    writer.write([{ type: "set", key: ["big"], value: "x".repeat(70_000) }], 70_000),
    writer.write([{ type: "sum", key: ["n"], value: 1n }], 8),
  ]);
  assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
  assert.equal((await kv.get(["ok", 1])).value, "a");
  assert.equal((await kv.get<Deno.KvU64>(["n"])).value?.value, 1n);
  await writer.close();
});

Deno.test("createTokenSource — one waiter's abort does not fail the shared grant for others", async () => {
  await using sim = await startVertexSimulator();
  const source = createTokenSource({
    serviceAccountJson: sim.serviceAccountJson,
    envName: "SA",
    tokenUrl: sim.tokenUrl,
    fetch,
    now: Date.now,
  });
  const first = new AbortController();
  const a = source.token(first.signal);
  const b = source.token(new AbortController().signal);
  first.abort(new Error("client left"));
  await assert.rejects(a);
  assert.match(await b, /\S+/);
});

Deno.test("end-user id — over 256 characters is refused on every JSON endpoint", async () => {
  await using h = await startHarness({
    models: [
      chatModel("acme/chat", "sim-chat"),
      {
        id: "acme/embed",
        kind: "embedding",
        routes: [{ provider: "sim-a", upstream_model: "sim-embed" }],
      },
      {
        id: "acme/tts",
        kind: "speech",
        voices: ["alloy"],
        routes: [{ provider: "sim-a", upstream_model: "sim-tts" }],
      },
    ],
  });
  const user = "u".repeat(257);
  const bodies: Array<[string, unknown]> = [
    ["/v1/chat/completions", {
      model: "acme/chat",
      messages: [{ role: "user", content: "x" }],
      user,
    }],
    ["/v1/responses", { model: "acme/chat", input: "x", user }],
    ["/v1/embeddings", { model: "acme/embed", input: "x", user }],
    ["/v1/audio/speech", { model: "acme/tts", input: "x", voice: "alloy", user }],
  ];
  for (const [path, body] of bodies) {
    const res = await h.post(path, body);
    assert.equal(res.status, 400, path);
    const error = (await res.json()).error;
    assert.equal(error.param, "user", path);
  }
  assert.equal(h.sim.requests.length, 0);
});

Deno.test("filterParameters — n > 1 is forwarded on openai routes, dropped and named on rebuilding ones", async () => {
  const { filterParameters } = await import("../../src/routing/filter_parameters.ts");
  const model = {
    id: "acme/chat",
    kind: "chat" as const,
    state: "active" as const,
    sovereignty: "strict" as const,
    pricing: {},
    supported_parameters: ["n"],
    routes: [{ provider: "p", upstream_model: "m" }],
  };
  const provider = (dialect: "openai" | "bedrock") => ({
    dialect,
    base_url: "http://127.0.0.1:9",
    zdr: false,
    unsupported_parameters: [],
    ...(dialect === "bedrock"
      ? { aws: { region: "eu-central-1", access_key_id_env: "A", secret_access_key_env: "B" } }
      : {}),
  });
  const route = (dialect: "openai" | "bedrock") => ({
    providerId: "p",
    provider: provider(dialect),
    route: { provider: "p", upstream_model: "m" },
    dialect,
    model,
  });
  const request = { model: "acme/chat", messages: [], stream: false, n: 2, extra: {} };
  const openai = filterParameters(request, route("openai"));
  assert.equal(openai.request.n, 2);
  assert.deepEqual(openai.dropped, []);
  const bedrock = filterParameters(request, route("bedrock"));
  assert.equal(bedrock.request.n, undefined);
  assert.deepEqual(bedrock.dropped, ["n"]);
});
