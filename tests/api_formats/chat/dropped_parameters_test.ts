/**
 * Rule 1: parameters a provider (or the model) does not support are removed from the upstream
 * request, not rejected. The gateway names what it removed in `x-sovra-dropped-params`.
 */
import assert from "node:assert/strict";
import { chatModel, DEFAULT_CHAT_PARAMS, type Harness } from "../../helpers/harness.ts";
import {
  type OpenAISimulator,
  startOpenAISimulator,
} from "../../../scripts/simulator/openai/mod.ts";
import {
  type Json,
  readToEnd,
  SIM_KEY,
  upstreamChatBodies,
  user,
  withHarness,
} from "../../helpers/chat.ts";

const MODEL = "acme/chat";
const messages = [user("Hello")];
const HEADER = "x-sovra-dropped-params";

function droppedOf(res: Response): string[] {
  const value = res.headers.get(HEADER);
  if (value === null) return [];
  return value.split(",").map((s) => s.trim()).filter((s) => s.length > 0).sort();
}

/** A second simulator behind provider `sim-np`, which declares `top_p` unsupported. */
async function withNoTopP(
  models: ReturnType<typeof chatModel>[],
  fn: (h: Harness, np: OpenAISimulator) => Promise<void>,
): Promise<void> {
  await using np = await startOpenAISimulator({ apiKey: SIM_KEY });
  await withHarness({
    models,
    providers: {
      "sim-np": {
        dialect: "openai",
        base_url: np.url,
        api_key_env: "SIM_KEY",
        unsupported_parameters: ["top_p"],
      },
    },
  }, (h) => fn(h, np));
}

function npBodies(np: OpenAISimulator): Json[] {
  return np.requests.map((r) => r.body as Json);
}

Deno.test("POST /v1/chat/completions — a parameter outside the model's supported_parameters is dropped and named", () =>
  withHarness({
    models: [
      chatModel(MODEL, "up", {
        supported_parameters: DEFAULT_CHAT_PARAMS.filter((p) => p !== "temperature"),
      }),
    ],
  }, async (h) => {
    for (const stream of [false, true]) {
      h.sim.reset();
      const res = await h.post("/v1/chat/completions", {
        model: MODEL,
        messages,
        stream,
        temperature: 0.3,
        top_p: 0.9,
        max_tokens: 50,
      });
      assert.equal(res.status, 200);
      assert.ok((await readToEnd(res)).clean);
      assert.deepEqual(droppedOf(res), ["temperature"]);
      const [sent] = upstreamChatBodies(h);
      assert.ok(sent);
      assert.ok(!("temperature" in sent), "temperature reached the upstream");
      assert.equal(sent.top_p, 0.9);
      assert.equal(sent.max_tokens, 50);
    }
  }));

Deno.test("POST /v1/chat/completions — a provider's unsupported_parameters are dropped and named", () =>
  withNoTopP([
    chatModel(MODEL, "up", { routes: [{ provider: "sim-np", upstream_model: "up" }] }),
  ], async (h, np) => {
    const { data, response } = await h.client.chat.completions
      .create({ model: MODEL, messages, top_p: 0.5, temperature: 0.2 })
      .withResponse();
    assert.equal(data.model, MODEL);
    assert.deepEqual(droppedOf(response), ["top_p"]);
    const [sent] = npBodies(np);
    assert.ok(sent);
    assert.ok(!("top_p" in sent), "top_p reached the upstream");
    assert.equal(sent.temperature, 0.2);
  }));

Deno.test("POST /v1/chat/completions — unknown extra fields are dropped and named", () =>
  withHarness({ models: [chatModel(MODEL, "up")] }, async (h) => {
    const { response } = await h.client.chat.completions
      .create({ model: MODEL, messages, seed: 7, temperature: 0.1 })
      .withResponse();
    assert.equal(response.status, 200);
    assert.deepEqual(droppedOf(response), ["seed"]);
    const [sent] = upstreamChatBodies(h);
    assert.ok(sent);
    assert.ok(!("seed" in sent), "seed reached the upstream");
    assert.equal(sent.temperature, 0.1);
  }));

Deno.test("POST /v1/chat/completions — nothing dropped means no dropped-params header", () =>
  withHarness({ models: [chatModel(MODEL, "up")] }, async (h) => {
    const res = await h.post("/v1/chat/completions", {
      model: MODEL,
      messages,
      temperature: 0.4,
      top_p: 0.8,
      max_tokens: 60,
      stop: ["\n\n"],
      user: "end-user-1",
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.deepEqual(droppedOf(res), []);
    const [sent] = upstreamChatBodies(h);
    assert.equal(sent?.temperature, 0.4);
    assert.equal(sent?.top_p, 0.8);
    assert.equal(sent?.max_tokens, 60);
    assert.deepEqual(sent?.stop, ["\n\n"]);
  }));

Deno.test("POST /v1/chat/completions — dropping is decided per route: the standby gets what it supports", () =>
  withNoTopP([
    chatModel(MODEL, "up", {
      routes: [
        { provider: "sim-np", upstream_model: "p+fail-500" },
        { provider: "sim-b", upstream_model: "standby-ok" },
      ],
    }),
  ], async (h, np) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, top_p: 0.5 });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const [toPrimary] = npBodies(np);
    assert.ok(toPrimary && !("top_p" in toPrimary), "top_p reached the primary");
    const [toStandby] = upstreamChatBodies(h);
    assert.equal(toStandby?.top_p, 0.5, "the standby supports top_p and must receive it");
    assert.deepEqual(droppedOf(res), [], "the serving route dropped nothing");
  }));

Deno.test("POST /v1/chat/completions — a standby that lacks a parameter gets it dropped and named", () =>
  withNoTopP([
    chatModel(MODEL, "up", {
      routes: [
        { provider: "sim-a", upstream_model: "p+fail-503" },
        { provider: "sim-np", upstream_model: "standby-ok" },
      ],
    }),
  ], async (h, np) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, top_p: 0.5 });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const [toPrimary] = upstreamChatBodies(h);
    assert.equal(toPrimary?.top_p, 0.5);
    const [toStandby] = npBodies(np);
    assert.ok(toStandby && !("top_p" in toStandby), "top_p reached the standby");
    assert.deepEqual(droppedOf(res), ["top_p"]);
  }));
