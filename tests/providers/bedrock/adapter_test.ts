import assert from "node:assert/strict";
import type { ChatRequest, ChatStreamEvent, FunctionTool } from "../../../src/canonical/chat.ts";
import type { ResolvedRoute } from "../../../src/catalog/resolved_route.ts";
import { createBedrockAdapter } from "../../../src/providers/bedrock/adapter.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";
import {
  type BedrockSimulator,
  startBedrockSimulator,
} from "../../../scripts/simulator/bedrock/mod.ts";
import type { EventBatches } from "../../../src/providers/event_batches.ts";

const CLAUDE = "anthropic.claude-3-7-sonnet-20250219-v1:0";
const NOVA = "amazon.nova-pro-v1:0";
const ENV: Record<string, string> = {
  SIM_AKID: "AKIDSIM",
  SIM_SECRET: "sim/secret+key",
  SIM_TOKEN: "session-token",
};
const env = (name: string) => ENV[name];
const WEATHER: FunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

function routeFor(sim: BedrockSimulator, upstream: string, reasoning = true): ResolvedRoute {
  return {
    providerId: "aws-eu",
    dialect: "bedrock",
    provider: {
      dialect: "bedrock",
      base_url: sim.url,
      aws: {
        region: "eu-central-1",
        access_key_id_env: "SIM_AKID",
        secret_access_key_env: "SIM_SECRET",
        session_token_env: "SIM_TOKEN",
      },
      zdr: false,
      unsupported_parameters: [],
    },
    route: { provider: "aws-eu", upstream_model: upstream },
    model: {
      id: "aws/model",
      kind: "chat",
      state: "active",
      sovereignty: "pragmatic",
      pricing: {},
      supported_parameters: ["tools"],
      routes: [{ provider: "aws-eu", upstream_model: upstream }],
      ...(reasoning
        ? {
          reasoning: {
            supported_efforts: ["low", "high"],
            supports_max_tokens: true,
            mandatory: false,
          },
        }
        : {}),
      limits: { default_max_tokens: 2048 },
    },
  };
}

function chat(extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: "aws/model",
    messages: [{ role: "user", content: "Hello there" }],
    stream: false,
    extra: {},
    ...extra,
  };
}

async function collect(batches: EventBatches<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for (let next = await batches.read(); !next.done; next = await batches.read()) {
    events.push(...next.value);
  }
  return events;
}

function call(route: ResolvedRoute) {
  return { route, signal: new AbortController().signal };
}

function usageOf(record: Record<string, unknown> | undefined) {
  const u = record as {
    inputTokens: number;
    outputTokens: number;
    totalTokens: number;
    cacheReadInputTokens?: number;
    cacheWriteInputTokens?: number;
  };
  return u;
}

Deno.test("createBedrockAdapter — text, tools, reasoning and errors against the simulator", async (t) => {
  await using sim = startBedrockSimulator({
    accessKeyId: "AKIDSIM",
    secretAccessKey: "sim/secret+key",
    sessionToken: "session-token",
    region: "eu-central-1",
  });
  const adapter = createBedrockAdapter({ env });
  for (const upstream of [CLAUDE, NOVA]) {
    await t.step(`chat — text answer and exact usage (${upstream})`, async () => {
      sim.reset();
      const result = await adapter.chat(
        chat({ system: undefined } as never),
        call(routeFor(sim, upstream)),
      );
      assert.match(result.content ?? "", /simulated upstream answer/);
      assert.equal(result.finishReason, "stop");
      const u = usageOf(sim.requests[0]?.usage);
      assert.deepEqual(result.usage, {
        promptTokens: u.inputTokens,
        completionTokens: u.outputTokens,
        totalTokens: u.totalTokens,
      });
      assert.equal(sim.requests[0]?.path, `/model/${encodeURIComponent(upstream)}/converse`);
      assert.equal(sim.requests[0]?.headers["x-amz-security-token"], "session-token");
    });

    await t.step(`chatStream — text deltas, finish, usage last (${upstream})`, async () => {
      sim.reset();
      const events = await collect(
        await adapter.chatStream(chat({ stream: true }), call(routeFor(sim, upstream))),
      );
      const text = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
      assert.match(text, /simulated upstream answer/);
      assert.deepEqual(events.at(-2), { type: "finish", reason: "stop" });
      const u = usageOf(sim.requests[0]?.usage);
      assert.deepEqual(events.at(-1), {
        type: "usage",
        usage: {
          promptTokens: u.inputTokens,
          completionTokens: u.outputTokens,
          totalTokens: u.totalTokens,
        },
      });
    });
  }

  await t.step(
    "chat — system prompt, stop, max_tokens and temperature reach Converse",
    async () => {
      sim.reset();
      await adapter.chat(
        chat({
          messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }],
          stop: ["END"],
          maxTokens: 77,
          temperature: 0.3,
          topP: 0.9,
        }),
        call(routeFor(sim, NOVA)),
      );
      const body = sim.requests[0]?.body as Record<string, unknown>;
      assert.deepEqual(body.system, [{ text: "Be brief." }]);
      assert.deepEqual(body.inferenceConfig, {
        maxTokens: 77,
        temperature: 0.3,
        topP: 0.9,
        stopSequences: ["END"],
      });
    },
  );

  await t.step("chat — Anthropic without max_tokens gets the catalog default", async () => {
    sim.reset();
    await adapter.chat(chat(), call(routeFor(sim, CLAUDE)));
    assert.deepEqual((sim.requests[0]?.body as { inferenceConfig: unknown }).inferenceConfig, {
      maxTokens: 2048,
    });
  });

  await t.step("chat — cache tokens are mapped into the prompt count", async () => {
    sim.reset();
    const result = await adapter.chat(chat(), call(routeFor(sim, `${CLAUDE}+cached`)));
    const u = usageOf(sim.requests[0]?.usage);
    assert.deepEqual(result.usage, {
      promptTokens: u.inputTokens + 12 + 5,
      completionTokens: u.outputTokens,
      totalTokens: u.totalTokens,
      cachedPromptTokens: 12,
      cacheWritePromptTokens: 5,
    });
  });

  await t.step("chat — no-usage leaves usage undefined", async () => {
    const result = await adapter.chat(chat(), call(routeFor(sim, `${NOVA}+no-usage`)));
    assert.equal(result.usage, undefined);
    const events = await collect(
      await adapter.chatStream(chat({ stream: true }), call(routeFor(sim, `${NOVA}+no-usage`))),
    );
    assert.equal(events.some((e) => e.type === "usage"), false);
  });

  await t.step("chat — tool call with forced tool, then the full tool loop", async () => {
    sim.reset();
    const route = routeFor(sim, NOVA);
    const request = chat({
      tools: [WEATHER],
      toolChoice: { type: "function", function: { name: "get_weather" } },
    });
    const first = await adapter.chat(request, call(route));
    assert.equal(first.finishReason, "tool_calls");
    const toolCall = first.toolCalls?.[0];
    assert.ok(toolCall);
    assert.deepEqual(JSON.parse(toolCall.function.arguments), { city: "Paris" });
    assert.deepEqual((sim.requests[0]?.body as { toolConfig: unknown }).toolConfig, {
      tools: [{
        toolSpec: {
          name: "get_weather",
          description: "Weather for a city",
          inputSchema: { json: WEATHER.function.parameters },
        },
      }],
      toolChoice: { tool: { name: "get_weather" } },
    });
    const second = await adapter.chat(
      chat({
        tools: [WEATHER],
        messages: [
          ...request.messages,
          { role: "assistant", content: null, toolCalls: [toolCall] },
          { role: "tool", toolCallId: toolCall.id, content: "Sunny, 24 C" },
        ],
      }),
      call(route),
    );
    assert.equal(second.finishReason, "stop");
    assert.equal(second.content, "The tool returned: Sunny, 24 C");
  });

  await t.step("chatStream — tool call fragments carry id and name first", async () => {
    const events = await collect(
      await adapter.chatStream(
        chat({ stream: true, tools: [WEATHER], toolChoice: "required" }),
        call(routeFor(sim, CLAUDE)),
      ),
    );
    const deltas = events.filter((e) => e.type === "tool-call-delta");
    assert.equal(deltas[0]?.type === "tool-call-delta" && deltas[0].name, "get_weather");
    assert.match(deltas[0]?.type === "tool-call-delta" ? deltas[0].id ?? "" : "", /^tooluse_/);
    const args = deltas.map((d) => (d.type === "tool-call-delta" ? d.arguments : "")).join("");
    assert.deepEqual(JSON.parse(args), { city: "Paris" });
    assert.ok(deltas.length > 2);
    assert.ok(events.some((e) => e.type === "finish" && e.reason === "tool_calls"));
  });

  await t.step("consecutive tool results merge into one user turn", async () => {
    sim.reset();
    const calls = [
      {
        id: "a1",
        type: "function" as const,
        function: { name: "get_weather", arguments: '{"city":"Rome"}' },
      },
      {
        id: "a2",
        type: "function" as const,
        function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
      },
    ];
    const result = await adapter.chat(
      chat({
        tools: [WEATHER],
        messages: [
          { role: "user", content: "Two cities" },
          { role: "assistant", content: "Looking.", toolCalls: calls },
          { role: "tool", toolCallId: "a1", content: "warm" },
          { role: "tool", toolCallId: "a2", content: "cold" },
        ],
      }),
      call(routeFor(sim, NOVA)),
    );
    assert.equal(result.content, "The tool returned: warm | cold");
    const messages =
      (sim.requests[0]?.body as { messages: Array<{ role: string; content: unknown[] }> })
        .messages;
    assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user"]);
    assert.equal(messages[2]?.content.length, 2);
  });

  await t.step("reasoning tool loop replays reasoningDetails with the signature", async () => {
    sim.reset();
    const route = routeFor(sim, `${CLAUDE}+reasoning`);
    const request = chat({ tools: [WEATHER], reasoning: { effort: "low" } });
    const first = await adapter.chat(request, call(route));
    assert.deepEqual(
      (sim.requests[0]?.body as { additionalModelRequestFields: unknown })
        .additionalModelRequestFields,
      {
        thinking: { type: "enabled", budget_tokens: 1024 },
      },
    );
    assert.ok(first.reasoning);
    const detail = first.reasoningDetails?.[0];
    assert.equal(detail?.type, "reasoning.text");
    assert.equal(detail?.format, "anthropic-claude-v1");
    assert.ok(detail?.type === "reasoning.text" && detail.signature);
    const toolCall = first.toolCalls?.[0];
    assert.ok(toolCall && first.reasoningDetails);
    const loop = (details: typeof first.reasoningDetails) =>
      chat({
        tools: [WEATHER],
        reasoning: { effort: "low" },
        messages: [
          ...request.messages,
          { role: "assistant", content: null, toolCalls: [toolCall], reasoningDetails: details },
          { role: "tool", toolCallId: toolCall.id, content: "Rain" },
        ],
      });
    const second = await adapter.chat(loop(first.reasoningDetails), call(route));
    assert.equal(second.content, "The tool returned: Rain");
    // A modified signature is rejected by the simulator, as the real service does.
    const tampered = [{ ...detail, signature: "AAAA" }] as typeof first.reasoningDetails;
    await assert.rejects(
      adapter.chat(loop(tampered), call(route)),
      (e) => e instanceof UpstreamFailure && e.kind === "invalid_request",
    );
  });

  await t.step("reasoning tool loop works from streamed fragments", async () => {
    const route = routeFor(sim, `${CLAUDE}+reasoning`);
    const request = chat({ stream: true, tools: [WEATHER], reasoning: { maxTokens: 3000 } });
    const events = await collect(await adapter.chatStream(request, call(route)));
    const details = events.flatMap((e) => (e.type === "reasoning-detail" ? [e.detail] : []));
    assert.ok(details.some((d) => d.type === "reasoning.text" && d.signature));
    const start = events.find((e) => e.type === "tool-call-delta" && e.id !== undefined);
    assert.ok(start?.type === "tool-call-delta" && start.id && start.name);
    const args = events.flatMap((e) => (e.type === "tool-call-delta" ? [e.arguments] : [])).join(
      "",
    );
    const second = await adapter.chat(
      chat({
        tools: [WEATHER],
        reasoning: { maxTokens: 3000 },
        messages: [
          { role: "user", content: "Hello there" },
          {
            role: "assistant",
            content: null,
            toolCalls: [{
              id: start.id,
              type: "function",
              function: { name: start.name, arguments: args },
            }],
            reasoningDetails: details,
          },
          { role: "tool", toolCallId: start.id, content: "Fog" },
        ],
      }),
      call(route),
    );
    assert.equal(second.content, "The tool returned: Fog");
  });

  await t.step(
    "redacted thinking becomes an encrypted detail without reasoning text",
    async () => {
      const route = routeFor(sim, `${CLAUDE}+redacted`);
      const result = await adapter.chat(chat({ reasoning: { effort: "medium" } }), call(route));
      assert.equal(result.reasoning, undefined);
      assert.equal(result.reasoningDetails?.[0]?.type, "reasoning.encrypted");
      assert.equal(result.reasoningDetails?.[0]?.format, "anthropic-claude-v1");
      const events = await collect(
        await adapter.chatStream(
          chat({ stream: true, reasoning: { effort: "medium" } }),
          call(route),
        ),
      );
      assert.equal(events.some((e) => e.type === "reasoning-delta"), false);
      const detail = events.find((e) => e.type === "reasoning-detail");
      assert.ok(
        detail?.type === "reasoning-detail" && detail.detail.type === "reasoning.encrypted",
      );
      // Sent back, the data is accepted unchanged.
      const again = await adapter.chat(
        chat({
          reasoning: { effort: "medium" },
          messages: [
            { role: "user", content: "a" },
            { role: "assistant", content: "b", reasoningDetails: result.reasoningDetails ?? [] },
            { role: "user", content: "c" },
          ],
        }),
        call(route),
      );
      assert.ok(again.content);
    },
  );

  const failures: Array<[string, string, number | undefined]> = [
    ["fail-429", "rate_limited", 429],
    ["fail-503", "unavailable", 503],
    ["fail-500", "unavailable", 500],
    ["fail-408", "unavailable", 408],
    ["fail-403", "auth", 403],
    ["fail-400", "invalid_request", 400],
  ];
  for (const [token, kind, status] of failures) {
    await t.step(`chat — ${token} maps to ${kind}`, async () => {
      await assert.rejects(adapter.chat(chat(), call(routeFor(sim, `${NOVA}+${token}`))), (e) => {
        assert.ok(e instanceof UpstreamFailure);
        assert.equal(e.kind, kind);
        assert.equal(e.status, status);
        return true;
      });
    });
  }

  await t.step("chat — ValidationException keeps the provider's message", async () => {
    const bad = chat({ messages: [{ role: "assistant", content: "I start" }] });
    await assert.rejects(adapter.chat(bad, call(routeFor(sim, NOVA))), (e) => {
      assert.ok(e instanceof UpstreamFailure);
      assert.equal(e.kind, "invalid_request");
      assert.match(e.message, /roles must alternate/);
      return true;
    });
  });

  await t.step(
    "chat — a wrong secret is an InvalidSignatureException (auth, retryable)",
    async () => {
      const wrong = createBedrockAdapter({ env: (n) => (n === "SIM_SECRET" ? "other" : env(n)) });
      await assert.rejects(wrong.chat(chat(), call(routeFor(sim, NOVA))), (e) => {
        assert.ok(e instanceof UpstreamFailure);
        assert.equal(e.kind, "auth");
        assert.equal(e.retryable, true);
        assert.equal(e.message.includes("other"), false);
        return true;
      });
      const unknownKey = createBedrockAdapter({
        env: (n) => (n === "SIM_AKID" ? "AKIDOTHER" : env(n)),
      });
      await assert.rejects(
        unknownKey.chat(chat(), call(routeFor(sim, NOVA))),
        (e) => e instanceof UpstreamFailure && e.kind === "auth",
      );
      const missing = createBedrockAdapter({
        env: () => undefined,
      });
      await assert.rejects(
        missing.chat(chat(), call(routeFor(sim, NOVA))),
        (e) => e instanceof UpstreamFailure && e.kind === "auth",
      );
    },
  );

  await t.step(
    "chatStream — an exception frame errors the stream with an UpstreamFailure",
    async () => {
      const stream = await adapter.chatStream(
        chat({ stream: true }),
        call(routeFor(sim, `${NOVA}+exception-after-3`)),
      );
      const seen: ChatStreamEvent[] = [];
      await assert.rejects(
        (async () => {
          for (let n = await stream.read(); !n.done; n = await stream.read()) seen.push(...n.value);
        })(),
        (e) => e instanceof UpstreamFailure && e.kind === "unavailable",
      );
      assert.equal(seen.filter((e) => e.type === "text-delta").length, 2);
    },
  );

  await t.step("chatStream — a dropped connection errors the stream", async () => {
    const stream = await adapter.chatStream(
      chat({ stream: true }),
      call(routeFor(sim, `${NOVA}+drop-after-2`)),
    );
    await assert.rejects(collect(stream), (e) => e instanceof UpstreamFailure && e.retryable);
  });

  await t.step("chatStream — a failure before the stream throws", async () => {
    await assert.rejects(
      adapter.chatStream(chat({ stream: true }), call(routeFor(sim, `${NOVA}+fail-429`))),
      (e) => e instanceof UpstreamFailure && e.kind === "rate_limited",
    );
  });
});
