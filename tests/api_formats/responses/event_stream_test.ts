import assert from "node:assert/strict";
import { packReasoning } from "../../../src/api_formats/responses/reasoning_envelope.ts";
import type { ChatStreamEvent } from "../../../src/canonical/chat.ts";
import {
  createResponsesEventStream,
  type ResponsesStreamOptions,
  type ResponsesStreamOutcome,
} from "../../../src/api_formats/responses/event_stream.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";
import { assertUsage, parseSse, validateResponsesStream } from "../../helpers/responses_stream.ts";

const ctx = {
  id: "resp_t1",
  createdAt: 1_700_000_000,
  model: "acme/model-1",
  excludeReasoning: false,
};
const usage: ChatStreamEvent = {
  type: "usage",
  usage: { promptTokens: 11, completionTokens: 7, reasoningTokens: 3 },
};

/** A canonical stream that serves `events` on demand, then ends or errors with `error`. */
function canonical(events: ChatStreamEvent[], error?: unknown) {
  let i = 0;
  const stats = { pulls: 0, cancelled: false as boolean | unknown };
  const stream = new ReadableStream<ChatStreamEvent>({
    pull(controller) {
      stats.pulls++;
      const next = events[i++];
      if (next !== undefined) controller.enqueue(next);
      else if (error !== undefined) controller.error(error);
      else controller.close();
    },
    cancel(reason) {
      stats.cancelled = reason ?? true;
    },
  }, { highWaterMark: 0 });
  return { stream, stats };
}

async function run(
  events: ChatStreamEvent[],
  options: Partial<ResponsesStreamOptions> = {},
  error?: unknown,
) {
  const outcomes: ResponsesStreamOutcome[] = [];
  const { stream } = canonical(events, error);
  const out = createResponsesEventStream(stream, {
    ...ctx,
    ...options,
    onFinish: (o) => outcomes.push(o),
  });
  const text = await new Response(out.body).text();
  assert.equal(outcomes.length, 1, "onFinish is called exactly once");
  return { text, outcome: outcomes[0]!, ...validateResponsesStream(text) };
}

Deno.test("createResponsesEventStream — text answer with usage", async () => {
  const { events, response, outcome } = await run([
    { type: "text-delta", text: "Hel" },
    { type: "text-delta", text: "lo" },
    { type: "finish", reason: "stop" },
    usage,
  ]);
  assert.deepEqual(events.map((e) => e.type), [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
  ]);
  assert.equal(response.status, "completed");
  assert.equal(response.id, "resp_t1");
  assert.deepEqual(response.output, [{
    type: "message",
    id: "msg_t1_0",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Hello", annotations: [] }],
  }]);
  assert.deepEqual(assertUsage(response), {
    input_tokens: 11,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: 7,
    output_tokens_details: { reasoning_tokens: 3 },
    total_tokens: 18,
  });
  assert.equal(outcome.status, "completed");
  assert.equal(outcome.result.content, "Hello");
  assert.equal(outcome.result.finishReason, "stop");
  assert.deepEqual(outcome.result.usage, {
    promptTokens: 11,
    completionTokens: 7,
    reasoningTokens: 3,
  });
});

Deno.test("createResponsesEventStream — reasoning then text, details merged into the reasoning item", async () => {
  const { events, response, outcome } = await run([
    { type: "reasoning-delta", text: "Think" },
    { type: "reasoning-detail", detail: { type: "reasoning.text", text: "Think", index: 0 } },
    { type: "reasoning-delta", text: "ing" },
    { type: "reasoning-detail", detail: { type: "reasoning.text", text: "ing", index: 0 } },
    {
      type: "reasoning-detail",
      detail: { type: "reasoning.text", text: "", signature: "sig", index: 0 },
    },
    { type: "text-delta", text: "Done" },
    { type: "finish", reason: "stop" },
    usage,
  ]);
  assert.ok(events.some((e) => e.type === "response.reasoning_text.delta"));
  const [reasoning, message] = response.output as Array<Record<string, unknown>>;
  assert.deepEqual(reasoning, {
    type: "reasoning",
    id: "rs_t1_0",
    summary: [],
    content: [{ type: "reasoning_text", text: "Thinking" }],
    encrypted_content: packReasoning([
      { type: "reasoning.text", text: "Thinking", index: 0, signature: "sig" },
    ]),
    reasoning_details: [{ type: "reasoning.text", text: "Thinking", signature: "sig", index: 0 }],
    status: "completed",
  });
  assert.equal(message?.id, "msg_t1_1");
  assertUsage(response);
  assert.equal(outcome.result.reasoning, "Thinking");
  assert.equal(outcome.result.content, "Done");
});

Deno.test("createResponsesEventStream — two tool calls on a reasoning model get a reasoning item first", async () => {
  const { events, response, outcome } = await run([
    { type: "tool-call-delta", index: 0, id: "call_a", name: "weather", arguments: '{"city":' },
    { type: "tool-call-delta", index: 0, arguments: '"Paris"}' },
    { type: "tool-call-delta", index: 1, id: "call_b", name: "time", arguments: "{}" },
    { type: "finish", reason: "tool_calls" },
    usage,
  ], { replayReasoning: true });
  const output = response.output as Array<Record<string, unknown>>;
  assert.deepEqual(output.map((o) => o.type), ["reasoning", "function_call", "function_call"]);
  assert.deepEqual(output[1], {
    type: "function_call",
    id: "fc_t1_1",
    call_id: "call_a",
    name: "weather",
    arguments: '{"city":"Paris"}',
    status: "completed",
  });
  assert.equal(output[2]?.call_id, "call_b");
  assert.equal(events.filter((e) => e.type === "response.function_call_arguments.delta").length, 3);
  assertUsage(response);
  assert.deepEqual(outcome.result.toolCalls?.map((c) => c.function.arguments), [
    '{"city":"Paris"}',
    "{}",
  ]);
  assert.equal(outcome.result.finishReason, "tool_calls");
});

Deno.test("createResponsesEventStream — upstream error mid-stream closes items and sends response.failed", async () => {
  const failure = new UpstreamFailure("unavailable", "Upstream secret detail");
  const { text, events, response, outcome } = await run(
    [
      { type: "reasoning-delta", text: "hmm" },
      { type: "text-delta", text: "Par" },
      { type: "tool-call-delta", index: 0, id: "call_a", name: "f", arguments: "{" },
    ],
    {},
    failure,
  );
  assert.equal(events.at(-1)?.type, "response.failed");
  assert.equal(response.status, "failed");
  assert.deepEqual(response.error, {
    code: "server_error",
    message: "The generation broke off; the answer is incomplete.",
  });
  assert.ok(!text.includes("secret"), "no internals reach the client");
  const output = response.output as Array<{ type: string; status: string }>;
  assert.deepEqual(output.map((o) => [o.type, o.status]), [
    ["reasoning", "completed"],
    ["message", "completed"],
    ["function_call", "incomplete"],
  ]);
  assert.equal(outcome.status, "failed");
  assert.equal(outcome.error, failure);
  assert.equal(outcome.result.content, "Par");
  assert.equal(outcome.result.finishReason, "error");
});

Deno.test("createResponsesEventStream — a rate-limit failure maps to rate_limit_exceeded", async () => {
  const { response } = await run(
    [{ type: "text-delta", text: "x" }],
    {},
    new UpstreamFailure("rate_limited", "429"),
  );
  assert.equal((response.error as { code: string }).code, "rate_limit_exceeded");
});

Deno.test("createResponsesEventStream — fail() during a pending read ends with response.failed", async () => {
  let release: (() => void) | undefined;
  let cancelled: unknown;
  const stream = new ReadableStream<ChatStreamEvent>({
    start(controller) {
      controller.enqueue({ type: "text-delta", text: "a" });
    },
    pull() {
      return new Promise<void>((resolve) => release = resolve);
    },
    cancel(reason) {
      cancelled = reason;
      release?.();
    },
  }, { highWaterMark: 0 });
  const outcomes: ResponsesStreamOutcome[] = [];
  const out = createResponsesEventStream(stream, { ...ctx, onFinish: (o) => outcomes.push(o) });
  const reader = out.body.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value); // created + in_progress
  text += decoder.decode((await reader.read()).value); // the text delta
  const pending = reader.read();
  const reason = new Error("idle timeout");
  out.fail(reason);
  text += decoder.decode((await pending).value);
  assert.equal((await reader.read()).done, true);
  const { response } = validateResponsesStream(text);
  assert.equal(response.status, "failed");
  assert.equal(cancelled, reason, "the canonical stream is cancelled");
  assert.equal(outcomes.length, 1);
  assert.equal(outcomes[0]?.status, "failed");
});

Deno.test("createResponsesEventStream — reads no upstream event before the client asks", async () => {
  const { stream, stats } = canonical([
    { type: "text-delta", text: "a" },
    { type: "text-delta", text: "b" },
  ]);
  const out = createResponsesEventStream(stream, ctx);
  const reader = out.body.getReader();
  await reader.read(); // created + in_progress
  assert.equal(stats.pulls, 0);
  await reader.read(); // first delta
  assert.equal(stats.pulls, 1);
  await reader.read(); // second delta
  assert.equal(stats.pulls, 2);
  await reader.cancel("client left");
  assert.equal(stats.cancelled, "client left");
});

Deno.test("createResponsesEventStream — client cancel reports the answer so far", async () => {
  const { stream } = canonical([{ type: "text-delta", text: "partial" }, {
    type: "text-delta",
    text: "!",
  }]);
  const outcomes: ResponsesStreamOutcome[] = [];
  const out = createResponsesEventStream(stream, { ...ctx, onFinish: (o) => outcomes.push(o) });
  const reader = out.body.getReader();
  await reader.read();
  await reader.read();
  assert.equal(out.snapshot().content, "partial");
  await reader.cancel("gone");
  assert.equal(outcomes.length, 1);
  assert.equal(outcomes[0]?.status, "cancelled");
  assert.equal(outcomes[0]?.result.content, "partial");
});

Deno.test("createResponsesEventStream — excludeReasoning hides text but keeps encrypted details", async () => {
  const { text, response } = await run([
    { type: "reasoning-delta", text: "private thoughts" },
    {
      type: "reasoning-detail",
      detail: { type: "reasoning.text", text: "private thoughts", index: 0 },
    },
    { type: "reasoning-detail", detail: { type: "reasoning.encrypted", data: "ENC", id: "rs_up" } },
    { type: "tool-call-delta", index: 0, id: "call_a", name: "f", arguments: "{}" },
    { type: "finish", reason: "tool_calls" },
  ], { excludeReasoning: true, replayReasoning: true });
  assert.ok(!text.includes("private"));
  const output = response.output as Array<Record<string, unknown>>;
  assert.deepEqual(output[0], {
    type: "reasoning",
    id: "rs_t1_0",
    summary: [],
    encrypted_content: packReasoning([{ type: "reasoning.encrypted", data: "ENC", id: "rs_up" }]),
    reasoning_details: [{ type: "reasoning.encrypted", data: "ENC", id: "rs_up" }],
    status: "completed",
  });
  assert.equal(output[1]?.type, "function_call");
  assert.equal(response.usage, undefined, "no usage reported, none invented");
});

Deno.test("createResponsesEventStream — a length finish completes with status incomplete", async () => {
  const { response, terminal } = await run([
    { type: "text-delta", text: "cut" },
    { type: "finish", reason: "length" },
  ]);
  assert.equal(terminal, "response.completed");
  assert.equal(response.status, "incomplete");
  assert.deepEqual(response.incomplete_details, { reason: "max_output_tokens" });
  assert.equal((response.output[0] as { status: string }).status, "incomplete");
});

Deno.test("validateResponsesStream — rejects an unbalanced stream", () => {
  const bad = [
    { type: "response.created", sequence_number: 0, response: { output: [] } },
    { type: "response.in_progress", sequence_number: 1, response: { output: [] } },
    {
      type: "response.output_item.added",
      sequence_number: 2,
      output_index: 0,
      item: { id: "m", type: "message", status: "in_progress" },
    },
    {
      type: "response.completed",
      sequence_number: 3,
      response: { status: "completed", output: [] },
    },
  ].map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  assert.equal(parseSse(bad).length, 4);
  assert.throws(() => validateResponsesStream(bad), /every added item is done/);
});

Deno.test("createResponsesEventStream — a cancel during a pending read finishes once", async () => {
  let release: (() => void) | undefined;
  let cancelled = false;
  const stream = new ReadableStream<ChatStreamEvent>({
    pull: () => new Promise<void>((resolve) => release = resolve),
    cancel() {
      cancelled = true;
      release?.();
    },
  }, { highWaterMark: 0 });
  const outcomes: ResponsesStreamOutcome[] = [];
  const out = createResponsesEventStream(stream, { ...ctx, onFinish: (o) => outcomes.push(o) });
  const reader = out.body.getReader();
  await reader.read(); // created + in_progress
  const pending = reader.read();
  await reader.cancel("client left");
  assert.equal((await pending).done, true);
  assert.ok(cancelled);
  assert.deepEqual(outcomes.map((o) => o.status), ["cancelled"]);
});
