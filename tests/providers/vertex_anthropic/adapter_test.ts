import assert from "node:assert/strict";
import type { ChatRequest, ChatStreamEvent, FunctionTool } from "../../../src/canonical/chat.ts";
import type { ResolvedRoute } from "../../../src/catalog/resolved_route.ts";
import { createVertexAnthropicAdapter } from "../../../src/providers/vertex_anthropic/adapter.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";
import {
  startVertexSimulator,
  type VertexSimulator,
} from "../../../scripts/simulator/vertex/mod.ts";
import type { EventBatches } from "../../../src/providers/event_batches.ts";

const MODEL = "claude-sonnet-4@20250514";
const WEATHER: FunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

function routeFor(sim: VertexSimulator, upstream: string): ResolvedRoute {
  return {
    providerId: "vertex-eu",
    dialect: "vertex-anthropic",
    provider: {
      dialect: "vertex-anthropic",
      base_url: sim.url,
      vertex: {
        project: "sim-project",
        region: "europe-west1",
        service_account_env: "SIM_SA",
        token_url: sim.tokenUrl,
      },
      zdr: false,
      unsupported_parameters: [],
    },
    route: { provider: "vertex-eu", upstream_model: upstream },
    model: {
      id: "vertex/claude",
      kind: "chat",
      state: "active",
      sovereignty: "pragmatic",
      pricing: {},
      supported_parameters: ["tools"],
      routes: [{ provider: "vertex-eu", upstream_model: upstream }],
      reasoning: {
        supported_efforts: ["low", "high"],
        supports_max_tokens: true,
        mandatory: false,
      },
    },
  };
}

const chat = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: "vertex/claude",
  messages: [{ role: "user", content: "Hello there" }],
  stream: false,
  extra: {},
  ...extra,
});
const call = (route: ResolvedRoute) => ({ route, signal: new AbortController().signal });

async function collect(batches: EventBatches<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for (let next = await batches.read(); !next.done; next = await batches.read()) {
    events.push(...next.value);
  }
  return events;
}

type AnthropicUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
};

Deno.test("createVertexAnthropicAdapter — messages, tools, thinking and errors against the simulator", async (t) => {
  await using sim = await startVertexSimulator();
  const adapter = createVertexAnthropicAdapter({
    env: (n) => (n === "SIM_SA" ? sim.serviceAccountJson : undefined),
  });
  await t.step(
    "chat — body has anthropic_version, no model, default max_tokens; usage exact",
    async () => {
      sim.reset();
      const result = await adapter.chat(
        chat({
          messages: [{ role: "system", content: "Terse." }, { role: "user", content: "Hi" }],
        }),
        call(routeFor(sim, MODEL)),
      );
      assert.match(result.content ?? "", /simulated upstream answer/);
      const record = sim.requests[0];
      assert.equal(
        record?.path,
        `/v1/projects/sim-project/locations/europe-west1/publishers/anthropic/models/${MODEL}:rawPredict`,
      );
      assert.equal(record?.body.anthropic_version, "vertex-2023-10-16");
      assert.equal("model" in (record?.body ?? {}), false);
      assert.equal(record?.body.max_tokens, 4096);
      assert.deepEqual(record?.body.system, [{ type: "text", text: "Terse." }]);
      const u = record?.usage as AnthropicUsage;
      assert.deepEqual(result.usage, {
        promptTokens: u.input_tokens,
        completionTokens: u.output_tokens,
        totalTokens: u.input_tokens + u.output_tokens,
        cachedPromptTokens: 0,
        cacheWritePromptTokens: 0,
      });
    },
  );

  await t.step(
    "chatStream — text, finish and usage split across message_start/message_delta",
    async () => {
      sim.reset();
      const events = await collect(
        await adapter.chatStream(chat({ stream: true }), call(routeFor(sim, `${MODEL}+cached`))),
      );
      assert.match(
        events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join(""),
        /simulated upstream answer/,
      );
      assert.deepEqual(events.at(-2), { type: "finish", reason: "stop" });
      const u = sim.requests[0]?.usage as AnthropicUsage;
      assert.deepEqual(events.at(-1), {
        type: "usage",
        usage: {
          promptTokens: u.input_tokens + 12 + 5,
          completionTokens: u.output_tokens,
          totalTokens: u.input_tokens + 17 + u.output_tokens,
          cachedPromptTokens: 12,
          cacheWritePromptTokens: 5,
        },
      });
      assert.equal(sim.requests[0]?.body.stream, true);
    },
  );

  await t.step("chat — tool_choice and parallel_tool_calls false reach the body", async () => {
    sim.reset();
    const result = await adapter.chat(
      chat({ tools: [WEATHER], toolChoice: "required", parallelToolCalls: false }),
      call(routeFor(sim, MODEL)),
    );
    assert.deepEqual(sim.requests[0]?.body.tool_choice, {
      type: "any",
      disable_parallel_tool_use: true,
    });
    assert.deepEqual(sim.requests[0]?.body.tools, [{
      name: "get_weather",
      input_schema: WEATHER.function.parameters,
    }]);
    assert.equal(result.finishReason, "tool_calls");
    assert.deepEqual(JSON.parse(result.toolCalls?.[0]?.function.arguments ?? ""), {
      city: "Paris",
    });
  });

  await t.step("chatStream — tool call fragments, then the tool loop", async () => {
    const route = routeFor(sim, MODEL);
    const events = await collect(
      await adapter.chatStream(chat({ stream: true, tools: [WEATHER] }), call(route)),
    );
    const first = events.find((e) => e.type === "tool-call-delta");
    assert.ok(first?.type === "tool-call-delta" && first.id && first.name === "get_weather");
    const args = events.flatMap((e) => (e.type === "tool-call-delta" ? [e.arguments] : [])).join(
      "",
    );
    const answer = await adapter.chat(
      chat({
        tools: [WEATHER],
        messages: [
          { role: "user", content: "Hello there" },
          {
            role: "assistant",
            content: null,
            toolCalls: [{
              id: first.id,
              type: "function",
              function: { name: "get_weather", arguments: args },
            }],
          },
          { role: "tool", toolCallId: first.id, content: "Snow" },
        ],
      }),
      call(route),
    );
    assert.equal(answer.content, "The tool returned: Snow");
  });

  await t.step("thinking tool loop: reasoningDetails replayed with their signature", async () => {
    sim.reset();
    const route = routeFor(sim, `${MODEL}+reasoning`);
    const request = chat({ tools: [WEATHER], reasoning: { effort: "high" }, temperature: 0.2 });
    const first = await adapter.chat(request, call(route));
    assert.deepEqual(sim.requests[0]?.body.thinking, { type: "enabled", budget_tokens: 16384 });
    assert.equal(sim.requests[0]?.body.max_tokens, 16384 + 4096);
    assert.equal("temperature" in (sim.requests[0]?.body ?? {}), false);
    assert.ok(first.reasoning && first.reasoningDetails?.[0]?.type === "reasoning.text");
    const toolCall = first.toolCalls?.[0];
    assert.ok(toolCall);
    const followUp = (details: typeof first.reasoningDetails) =>
      chat({
        tools: [WEATHER],
        reasoning: { effort: "high" },
        messages: [
          ...request.messages,
          {
            role: "assistant",
            content: null,
            toolCalls: [toolCall],
            ...(details ? { reasoningDetails: details } : {}),
          },
          { role: "tool", toolCallId: toolCall.id, content: "Hail" },
        ],
      });
    assert.equal(
      (await adapter.chat(followUp(first.reasoningDetails), call(route))).content,
      "The tool returned: Hail",
    );
    // Without the thinking block (a client that asked `reasoning.exclude` never had it),
    // Anthropic would refuse thinking on this tool loop: the step runs without thinking.
    const bare = await adapter.chat(followUp(undefined), call(route));
    assert.equal(bare.content, "The tool returned: Hail");
    assert.equal("thinking" in (sim.requests.at(-1)?.body ?? {}), false);
  });

  await t.step("streamed thinking: deltas, signature detail, redacted block", async () => {
    const events = await collect(
      await adapter.chatStream(
        chat({ stream: true, reasoning: { effort: "low" } }),
        call(routeFor(sim, `${MODEL}+reasoning+redacted`)),
      ),
    );
    assert.ok(events.some((e) => e.type === "reasoning-delta"));
    const details = events.flatMap((e) => (e.type === "reasoning-detail" ? [e.detail] : []));
    assert.ok(details.some((d) => d.type === "reasoning.text" && d.signature && d.index === 0));
    assert.ok(
      details.some((d) =>
        d.type === "reasoning.encrypted" && d.index === 1 && d.format === "anthropic-claude-v1"
      ),
    );
  });

  await t.step("redacted only: encrypted detail and no reasoning text", async () => {
    const result = await adapter.chat(
      chat({ reasoning: { effort: "low" } }),
      call(routeFor(sim, `${MODEL}+redacted`)),
    );
    assert.equal(result.reasoning, undefined);
    assert.deepEqual(result.reasoningDetails?.map((d) => d.type), ["reasoning.encrypted"]);
  });

  const failures: Array<[string, string, boolean]> = [
    ["fail-529", "unavailable", true],
    ["fail-429", "rate_limited", true],
    ["fail-500", "unavailable", true],
    ["fail-403", "auth", true],
    ["fail-400", "invalid_request", false],
    ["google-fail-429", "rate_limited", true],
    ["array-fail-429", "rate_limited", true],
    ["array-fail-400", "invalid_request", false],
  ];
  for (const [token, kind, retryable] of failures) {
    await t.step(`chat — ${token} maps to ${kind}`, async () => {
      await assert.rejects(
        adapter.chat(chat(), call(routeFor(sim, `${MODEL}+${token}`))),
        (e) => {
          assert.ok(e instanceof UpstreamFailure);
          assert.equal(e.kind, kind);
          assert.equal(e.retryable, retryable);
          return true;
        },
      );
    });
  }

  await t.step("chat — invalid_request_error keeps the provider's message", async () => {
    await assert.rejects(
      adapter.chat(
        chat({ messages: [{ role: "assistant", content: "x" }] }),
        call(routeFor(sim, MODEL)),
      ),
      (e) => {
        assert.ok(e instanceof UpstreamFailure && e.kind === "invalid_request");
        assert.match(e.message, /roles must alternate/);
        return true;
      },
    );
  });

  await t.step("chatStream — an error event after the start errors the stream", async () => {
    const stream = await adapter.chatStream(
      chat({ stream: true }),
      call(routeFor(sim, `${MODEL}+exception-after-4`)),
    );
    const seen: ChatStreamEvent[] = [];
    await assert.rejects(
      (async () => {
        for (let n = await stream.read(); !n.done; n = await stream.read()) seen.push(...n.value);
      })(),
      (e) => e instanceof UpstreamFailure && e.kind === "unavailable",
    );
    assert.ok(seen.some((e) => e.type === "text-delta"));
  });

  await t.step("chatStream — a dropped connection errors the stream", async () => {
    const stream = await adapter.chatStream(
      chat({ stream: true }),
      call(routeFor(sim, `${MODEL}+drop-after-3`)),
    );
    await assert.rejects(collect(stream), (e) => e instanceof UpstreamFailure);
  });
});
