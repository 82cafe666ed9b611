/**
 * Finish reasons `{ unified, raw }`: each dialect maps its own values; one it does not know is
 * `other` with its raw value kept on the result and the stream event, never passed off as `stop`.
 */
import assert from "node:assert/strict";
import type { ChatStreamEvent } from "../../src/canonical/chat.ts";
import { StreamAccounting } from "../../src/canonical/stream_accounting.ts";
import { mapOpenAIFinishReason } from "../../src/providers/openai/map_finish_reason.ts";
import { mapAnthropicStopReason } from "../../src/providers/anthropic_messages/map_finish_reason.ts";
import { mapBedrockStopReason } from "../../src/providers/bedrock/map_finish_reason.ts";
import { convertResponse } from "../../src/providers/openai/convert_response.ts";
import { convertChunk } from "../../src/providers/openai/convert_stream.ts";

Deno.test("map*FinishReason — known values unified with the raw value, unknown ones `other`", () => {
  assert.deepEqual(mapOpenAIFinishReason("function_call"), {
    unified: "tool_calls",
    raw: "function_call",
  });
  assert.deepEqual(mapOpenAIFinishReason("model_length"), {
    unified: "other",
    raw: "model_length",
  });
  assert.deepEqual(mapOpenAIFinishReason(null), { unified: "stop", raw: undefined });
  assert.deepEqual(mapAnthropicStopReason("refusal"), {
    unified: "content_filter",
    raw: "refusal",
  });
  assert.deepEqual(mapAnthropicStopReason("brand_new"), { unified: "other", raw: "brand_new" });
  assert.deepEqual(mapBedrockStopReason("malformed_tool_use"), {
    unified: "error",
    raw: "malformed_tool_use",
  });
  assert.deepEqual(mapBedrockStopReason("brand_new"), { unified: "other", raw: "brand_new" });
});

Deno.test("convertResponse — an unknown finish_reason is `other` with the raw value beside it", () => {
  const result = convertResponse({
    choices: [{ index: 0, finish_reason: "model_length", message: { content: "hi" } }],
  });
  assert.equal(result.finishReason, "other");
  assert.equal(result.rawFinishReason, "model_length");
  const known = convertResponse({
    choices: [{ index: 0, finish_reason: "length", message: { content: "hi" } }],
  });
  assert.equal(known.finishReason, "length");
  assert.equal(known.rawFinishReason, undefined);
});

Deno.test("convertChunk — an unknown finish_reason reaches the stream's accounting raw", () => {
  const events: ChatStreamEvent[] = [];
  convertChunk({ choices: [{ index: 0, delta: {}, finish_reason: "abort" }] }, events);
  assert.deepEqual(events, [{ type: "finish", reason: "other", raw: "abort" }]);
  const accounting = new StreamAccounting();
  for (const event of events) accounting.observe(event);
  assert.equal(accounting.finishReason, "other");
  assert.equal(accounting.rawFinishReason, "abort");
});
