/**
 * Rules 7 and 8 on a provider of the common chat-completions dialect (not a rebuilding route):
 * `response_format` passes unchanged, and a tool the service does not run (a hosted tool) is
 * not refused by the service: the request passes through unchanged and the provider's own
 * rejection comes back as a passthrough error.
 */
import assert from "node:assert/strict";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { chatModel } from "../../helpers/harness.ts";
import {
  askSimulator,
  isRecord,
  upstreamChatBodies,
  user,
  withHarness,
} from "../../helpers/chat.ts";

const MODEL = "acme/chat";
const messages = [user("Give me the forecast as JSON.")];

type Format = NonNullable<ChatCompletionCreateParamsNonStreaming["response_format"]>;

const jsonSchemaFormat: Format = {
  type: "json_schema",
  json_schema: {
    name: "forecast",
    strict: true,
    schema: {
      type: "object",
      properties: { city: { type: "string" }, celsius: { type: "number" } },
      required: ["city", "celsius"],
      additionalProperties: false,
    },
  },
};

Deno.test("POST /v1/chat/completions — response_format passes unchanged to a common-dialect provider", () =>
  withHarness({ models: [chatModel(MODEL, "up")] }, async (h) => {
    const formats: Format[] = [jsonSchemaFormat, { type: "json_object" }];
    for (const format of formats) {
      h.sim.reset();
      const completion = await h.client.chat.completions.create({
        model: MODEL,
        messages,
        response_format: format,
      });
      const [sent] = upstreamChatBodies(h);
      assert.deepEqual(sent?.response_format, format);
      const content: unknown = JSON.parse(completion.choices[0]?.message.content ?? "");
      assert.ok(isRecord(content), "the simulated provider honours the format");
      if (format === jsonSchemaFormat) {
        assert.equal(typeof content.city, "string");
        assert.equal(typeof content.celsius, "number");
      }
    }
  }));

Deno.test("POST /v1/chat/completions — a hosted tool passes through and the provider's rejection comes back", () =>
  withHarness({ models: [chatModel(MODEL, ["up", "standby-ok"])] }, async (h) => {
    const tools = [{ type: "web_search_preview", search_context_size: "low" }];
    const providerBody = await askSimulator(h, { model: "up", messages, tools });
    assert.ok(isRecord(providerBody.error), "precondition: the simulator rejects the tool");
    h.sim.reset();
    const res = await h.post("/v1/chat/completions", { model: MODEL, messages, tools });
    assert.equal(res.status, 400);
    const error = providerBody.error as Record<string, unknown>;
    assert.deepEqual(
      await res.json(),
      { ...providerBody, error: { ...error, code: error.code ?? "upstream_invalid_request" } },
      "the provider's own error, its null code filled in",
    );
    const sent = upstreamChatBodies(h);
    assert.equal(sent.length, 1, "a passthrough 4xx does not fall back");
    assert.deepEqual(sent[0]?.tools, tools, "the tool reached the provider unchanged");
  }));
