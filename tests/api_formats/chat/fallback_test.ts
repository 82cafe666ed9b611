/**
 * Rule 4 and the Errors table: an upstream 429, 5xx, 401, 403 or connect error moves to the
 * standby route (before the first byte of a stream); when no route is left the client gets
 * 429 `upstream_rate_limited`, 502 `upstream_error` or 502 `upstream_auth_error`, and never the
 * service's upstream credential.
 */
import assert from "node:assert/strict";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { chatModel, type TestModel } from "../../helpers/harness.ts";
import {
  assertErrorShape,
  deadProvider,
  onlyRow,
  readToEnd,
  requestRows,
  SIM_KEY,
  sseChunks,
  upstreamModels,
  user,
  withHarness,
} from "../../helpers/chat.ts";

const MODEL = "acme/chat";
const messages = [user("Hello")];

type Trigger = "429" | "500" | "503" | "401" | "403" | "connect";
const TRIGGERS: Trigger[] = ["429", "500", "503", "401", "403", "connect"];

/** Primary route failing with the trigger, standby `standby-ok` on sim-b. */
function failingPrimary(trigger: Trigger): TestModel {
  if (trigger !== "connect") return chatModel(MODEL, [`primary+fail-${trigger}`, "standby-ok"]);
  return chatModel(MODEL, "unused", {
    routes: [
      { provider: "dead", upstream_model: "primary" },
      { provider: "sim-b", upstream_model: "standby-ok" },
    ],
  });
}

for (const trigger of TRIGGERS) {
  Deno.test(`POST /v1/chat/completions — upstream ${trigger} on the primary is served by the standby`, () =>
    withHarness(
      { models: [failingPrimary(trigger)], providers: { dead: deadProvider() } },
      async (h) => {
        const { data, response } = await h.client.chat.completions
          .create({ model: MODEL, messages })
          .withResponse();
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("x-sovra-provider"), "sim-b");
        assert.equal(data.model, MODEL);
        assert.ok((data.choices[0]?.message.content ?? "").length > 0);
        const expectedUpstream = trigger === "connect"
          ? ["standby-ok"]
          : [`primary+fail-${trigger}`, "standby-ok"];
        assert.deepEqual(upstreamModels(h), expectedUpstream);
        const row = onlyRow(await requestRows(h));
        assert.equal(row.status, 200);
        assert.equal(row.fallbacks, 1);
        assert.equal(row.provider, "sim-b");
        assert.equal(row.stream, false);
      },
    ));

  Deno.test(`POST /v1/chat/completions — stream falls back on upstream ${trigger} before the first byte`, () =>
    withHarness(
      { models: [failingPrimary(trigger)], providers: { dead: deadProvider() } },
      async (h) => {
        const stream = await h.client.chat.completions.create({
          model: MODEL,
          messages,
          stream: true,
        });
        const chunks: ChatCompletionChunk[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
        assert.ok(text.length > 0);
        assert.ok(chunks.at(-1)?.usage);
        assert.equal(upstreamModels(h).at(-1), "standby-ok");
        const row = onlyRow(await requestRows(h));
        assert.equal(row.status, 200);
        assert.equal(row.fallbacks, 1);
        assert.equal(row.provider, "sim-b");
        assert.equal(row.stream, true);
      },
    ));
}

interface Exhausted {
  name: string;
  primary: string;
  standby: string;
  status: number;
  code: string;
}

const EXHAUSTED: Exhausted[] = [
  {
    name: "429",
    primary: "p+fail-429",
    standby: "s+fail-429",
    status: 429,
    code: "upstream_rate_limited",
  },
  {
    name: "5xx",
    primary: "p+fail-500",
    standby: "s+fail-503",
    status: 502,
    code: "upstream_error",
  },
  {
    name: "5xx raw",
    primary: "p+fail-502-raw",
    standby: "s+fail-500-raw",
    status: 502,
    code: "upstream_error",
  },
  {
    name: "401/403",
    primary: "p+fail-401",
    standby: "s+fail-403",
    status: 502,
    code: "upstream_auth_error",
  },
];

/** Asserts the upstream credential appears nowhere in a response (headers or body). */
function assertNoCredential(res: Response, body: string): void {
  assert.ok(!body.includes(SIM_KEY), "the upstream credential leaked into the body");
  for (const [name, value] of res.headers) {
    assert.ok(!value.includes(SIM_KEY), `the upstream credential leaked into header ${name}`);
  }
}

for (const c of EXHAUSTED) {
  Deno.test(`POST /v1/chat/completions — every route ${c.name} answers ${c.status} ${c.code}`, () =>
    withHarness({ models: [chatModel(MODEL, [c.primary, c.standby])] }, async (h) => {
      for (const stream of [false, true]) {
        h.sim.reset();
        const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream });
        const text = await res.text();
        assert.equal(res.status, c.status, `stream ${stream}: ${text}`);
        assert.match(res.headers.get("content-type") ?? "", /json/);
        assertErrorShape(JSON.parse(text), c.code);
        assertNoCredential(res, text);
        assert.deepEqual(upstreamModels(h), [c.primary, c.standby], "both routes were tried");
      }
      const rows = await requestRows(h);
      assert.equal(rows.length, 2);
      for (const row of rows) assert.equal(row.status, c.status);
    }));
}

Deno.test("POST /v1/chat/completions — connect errors on every route answer 502 upstream_error", () =>
  withHarness({
    models: [
      chatModel(MODEL, "unused", {
        routes: [
          { provider: "dead", upstream_model: "p" },
          { provider: "dead2", upstream_model: "s" },
        ],
      }),
    ],
    providers: { dead: deadProvider(), dead2: deadProvider() },
  }, async (h) => {
    for (const stream of [false, true]) {
      const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream });
      const text = await res.text();
      assert.equal(res.status, 502, text);
      assertErrorShape(JSON.parse(text), "upstream_error");
      assertNoCredential(res, text);
    }
  }));

Deno.test("POST /v1/chat/completions — a single failing route without standby is not retried", () =>
  withHarness({ models: [chatModel(MODEL, "only+fail-503")] }, async (h) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages });
    const text = await res.text();
    assert.equal(res.status, 502, text);
    assertErrorShape(JSON.parse(text), "upstream_error");
    assert.deepEqual(upstreamModels(h), ["only+fail-503"]);
    const row = onlyRow(await requestRows(h));
    assert.equal(row.status, 502);
    assert.equal(row.cost_micro_eur, 0);
  }));

Deno.test("POST /v1/chat/completions — a stream that fell back still frames its SSE per spec", () =>
  withHarness({ models: [chatModel(MODEL, ["p+fail-500", "s-ok"])] }, async (h) => {
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, stream: true });
    assert.equal(res.status, 200);
    const { text, clean } = await readToEnd(res);
    assert.ok(clean);
    assert.ok(text.endsWith("data: [DONE]\n\n"));
    const chunks = sseChunks(text);
    for (const chunk of chunks) assert.equal(chunk.model, MODEL);
    assert.ok(chunks.at(-1)?.usage);
  }));

Deno.test("POST /v1/chat/completions — a non-stream answer whose connection breaks falls back to the standby", () =>
  withHarness({ models: [chatModel(MODEL, ["p+drop-after-3", "standby-ok"])] }, async (h) => {
    const completion = await h.client.chat.completions.create({ model: MODEL, messages });
    assert.ok((completion.choices[0]?.message.content ?? "").length > 0);
    assert.deepEqual(upstreamModels(h), ["p+drop-after-3", "standby-ok"]);
    const row = onlyRow(await requestRows(h));
    assert.equal(row.fallbacks, 1);
    assert.equal(row.provider, "sim-b");
  }));
