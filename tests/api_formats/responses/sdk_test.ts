/**
 * The official `openai` SDK as the client: our JSON body and our SSE stream, served by a real
 * HTTP server on 127.0.0.1, must parse, accumulate and validate in the SDK.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { ChatResult, ChatStreamEvent } from "../../../src/canonical/chat.ts";
import { encodeResponse } from "../../../src/api_formats/responses/encode_response.ts";
import { createResponsesEventStream } from "../../../src/api_formats/responses/event_stream.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";

const ctx = {
  id: "resp_sdk",
  createdAt: 1_700_000_000,
  model: "acme/model-1",
  excludeReasoning: false,
};

/** Serves one canned answer per request on 127.0.0.1:0 and runs `fn` with an SDK client. */
async function withServer(
  answer: () => Response,
  fn: (client: OpenAI) => Promise<void>,
): Promise<void> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      await req.body?.cancel();
      return answer();
    },
  );
  try {
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: `http://127.0.0.1:${server.addr.port}/v1`,
      maxRetries: 0,
    });
    await fn(client);
  } finally {
    await server.shutdown();
  }
}

function sse(events: ChatStreamEvent[], error?: unknown, reasoningModel = false): () => Response {
  return () => {
    let i = 0;
    const canonical = new ReadableStream<ChatStreamEvent>({
      pull(controller) {
        const next = events[i++];
        if (next !== undefined) controller.enqueue(next);
        else if (error !== undefined) controller.error(error);
        else controller.close();
      },
    }, { highWaterMark: 0 });
    const { body } = createResponsesEventStream(canonical, {
      ...ctx,
      replayReasoning: reasoningModel,
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
}

const usage: ChatStreamEvent = { type: "usage", usage: { promptTokens: 5, completionTokens: 9 } };

Deno.test("openai SDK responses.stream — accumulates reasoning and text with usage", async () => {
  await withServer(
    sse([
      { type: "reasoning-delta", text: "Let me see" },
      {
        type: "reasoning-detail",
        detail: { type: "reasoning.text", text: "", signature: "s1", index: 0 },
      },
      { type: "text-delta", text: "Bonjour" },
      { type: "text-delta", text: " !" },
      { type: "finish", reason: "stop" },
      usage,
    ]),
    async (client) => {
      const stream = client.responses.stream({ model: "acme/model-1", input: "Hi" });
      const deltas: string[] = [];
      stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
      const final = await stream.finalResponse();
      assert.equal(final.output_text, "Bonjour !");
      assert.deepEqual(deltas, ["Bonjour", " !"]);
      assert.equal(final.status, "completed");
      assert.deepEqual(final.output.map((o) => o.type), ["reasoning", "message"]);
      const reasoning = final.output[0];
      assert.equal(reasoning?.type === "reasoning" && reasoning.content?.[0]?.text, "Let me see");
      assert.equal(final.usage?.input_tokens, 5);
      assert.equal(final.usage?.output_tokens, 9);
      assert.equal(final.usage?.total_tokens, 14);
    },
  );
});

Deno.test("openai SDK responses.stream — two function calls", async () => {
  await withServer(
    sse(
      [
        { type: "tool-call-delta", index: 0, id: "call_1", name: "weather", arguments: '{"city"' },
        { type: "tool-call-delta", index: 0, arguments: ':"Oslo"}' },
        { type: "tool-call-delta", index: 1, id: "call_2", name: "time", arguments: "{}" },
        { type: "finish", reason: "tool_calls" },
        usage,
      ],
      undefined,
      true,
    ),
    async (client) => {
      const final = await client.responses.stream({ model: "acme/model-1", input: "Hi" })
        .finalResponse();
      const calls = final.output.filter((o) => o.type === "function_call");
      assert.deepEqual(calls.map((c) => [c.call_id, c.name, c.arguments]), [
        ["call_1", "weather", '{"city":"Oslo"}'],
        ["call_2", "time", "{}"],
      ]);
      assert.equal(final.output[0]?.type, "reasoning");
      assert.equal(final.usage?.total_tokens, 14);
    },
  );
});

Deno.test("openai SDK responses.create({stream: true}) — iterates the events in order", async () => {
  await withServer(
    sse([{ type: "text-delta", text: "ok" }, { type: "finish", reason: "stop" }, usage]),
    async (client) => {
      const stream = await client.responses.create({
        model: "acme/model-1",
        input: "Hi",
        stream: true,
      });
      const types: string[] = [];
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "response.completed") completed = event.response;
      }
      assert.equal(types[0], "response.created");
      assert.equal(types.at(-1), "response.completed");
      assert.equal(completed?.usage?.output_tokens, 9);
      const message = completed?.output[0];
      assert.equal(
        message?.type === "message" && message.content[0]?.type === "output_text" &&
          message.content[0].text,
        "ok",
      );
    },
  );
});

Deno.test("openai SDK responses.stream — a mid-stream failure resolves as a failed response", async () => {
  await withServer(
    sse([{ type: "text-delta", text: "half" }], new UpstreamFailure("unavailable", "boom")),
    async (client) => {
      const stream = client.responses.stream({ model: "acme/model-1", input: "Hi" });
      let failedEvents = 0;
      stream.on("response.failed", () => failedEvents++);
      const final = await stream.finalResponse();
      assert.equal(final.status, "failed");
      assert.equal(final.error?.code, "server_error");
      assert.equal(final.output_text, "half");
      assert.equal(failedEvents, 1);
    },
  );
});

Deno.test("openai SDK responses.create — parses the non-streamed response object", async () => {
  const result: ChatResult = {
    content: "Hello there",
    reasoning: "brief",
    toolCalls: [{ id: "call_9", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
    finishReason: "tool_calls",
    usage: { promptTokens: 3, completionTokens: 4, cachedPromptTokens: 1 },
  };
  await withServer(
    () => Response.json(encodeResponse(result, ctx)),
    async (client) => {
      const response = await client.responses.create({ model: "acme/model-1", input: "Hi" });
      assert.equal(response.output_text, "Hello there");
      assert.deepEqual(response.output.map((o) => o.type), [
        "reasoning",
        "message",
        "function_call",
      ]);
      assert.equal(response.usage?.input_tokens_details.cached_tokens, 1);
    },
  );
});
