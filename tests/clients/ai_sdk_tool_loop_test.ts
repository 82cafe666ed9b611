/**
 * The Vercel AI SDK's default model (`createOpenAI(...)(id)`, the Responses
 * API) runs a tool loop — `generateText` + tools + `stopWhen: stepCountIs(3)` — unmodified,
 * with `providerOptions.openai.store = false` as the README asks, on Claude (Bedrock and
 * Vertex, with and without reasoning), gpt-oss and magistral. Without `store: false` the SDK
 * sends `item_reference` items, and the error says to set it.
 */
import assert from "node:assert/strict";
import { APICallError, generateText, stepCountIs, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import type { Harness, TestModel } from "../helpers/harness.ts";
import { platformModel, type Platforms, routeOf } from "../helpers/platforms.ts";
import { withPlatforms } from "../helpers/platform_suite.ts";

/** The catalog's reasoning blocks of gpt-oss and magistral (reasoning is mandatory). */
const GPT_OSS_REASONING = {
  supported_efforts: ["low", "medium", "high"],
  default_effort: "medium",
  supports_max_tokens: false,
  mandatory: true,
};
const MAGISTRAL_REASONING = {
  supported_efforts: ["high"],
  default_effort: "high",
  supports_max_tokens: false,
  mandatory: true,
};

function models(): TestModel[] {
  return [
    // Claude as the shipped catalog has it: a reasoning block, thinking off unless asked.
    platformModel("anthropic/claude-bedrock", [routeOf("bedrock-claude")], { reasoning: true }),
    platformModel("anthropic/claude-vertex", [routeOf("vertex-claude")], { reasoning: true }),
    // The simulators think (with signatures) when asked through the `+reasoning` token.
    platformModel("anthropic/claude-bedrock-thinking", [routeOf("bedrock-claude", "+reasoning")], {
      reasoning: true,
    }),
    platformModel("anthropic/claude-vertex-thinking", [routeOf("vertex-claude", "+reasoning")], {
      reasoning: true,
    }),
    {
      ...platformModel("openai/gpt-oss-120b", [{
        provider: "sim-a",
        upstream_model: "gpt-oss-120b+reasoning",
      }]),
      reasoning: GPT_OSS_REASONING,
    },
    {
      ...platformModel("mistral/magistral-medium-2509", [{
        provider: "sim-b",
        upstream_model: "magistral-medium-2509+reasoning",
      }]),
      reasoning: MAGISTRAL_REASONING,
    },
  ];
}

const weather = tool({
  description: "Current weather for a city",
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }: { city: string }) => Promise.resolve({ city, celsius: 21 }),
});

function provider(h: Harness) {
  return createOpenAI({ baseURL: `${h.url}/v1`, apiKey: h.key });
}

/** How many calls reached any upstream simulator. */
function upstreamRequests(h: Harness, p: Platforms): number {
  return h.sim.requests.length + p.bedrock.requests.length + p.vertex.requests.length;
}

/**
 * The body of the last upstream call as JSON text: the second step's, which must carry the
 * first step's reasoning back (Anthropic thinking with its signature, `reasoning_details`).
 */
function lastUpstreamBody(h: Harness, p: Platforms, model: string): string {
  const records = model.includes("bedrock")
    ? p.bedrock.requests
    : model.includes("vertex")
    ? p.vertex.requests
    : h.sim.requests;
  return JSON.stringify(records.at(-1)?.body);
}

async function loop(
  h: Harness,
  model: string,
  openai: Record<string, string | boolean>,
) {
  return await generateText({
    model: provider(h)(model),
    tools: { get_weather: weather },
    stopWhen: stepCountIs(3),
    prompt: "What is the weather in Lyon? Use the tool.",
    providerOptions: { openai },
    maxRetries: 0,
  });
}

Deno.test("AI SDK generateText tool loop over /v1/responses with store:false", async (t) => {
  await withPlatforms(models(), async (h, p) => {
    // The SDK sends `reasoning` for model ids it does not know only with `forceReasoning`.
    const think = { forceReasoning: true, reasoningEffort: "low" };
    const cases: Array<[string, Record<string, string | boolean>, boolean]> = [
      ["anthropic/claude-bedrock", {}, false],
      ["anthropic/claude-vertex", {}, false],
      ["anthropic/claude-bedrock-thinking", think, true],
      ["anthropic/claude-vertex-thinking", think, true],
      ["openai/gpt-oss-120b", {}, true],
      ["mistral/magistral-medium-2509", {}, true],
    ];
    for (const [model, options, thinks] of cases) {
      await t.step(`${model} ${JSON.stringify(options)}`, async () => {
        const before = upstreamRequests(h, p);
        const result = await loop(h, model, { store: false, ...options });
        assert.equal(result.steps.length, 2, "a tool step, then the answer");
        const [call, answer] = result.steps;
        assert.deepEqual(call!.toolCalls.map((c) => c.toolName), ["get_weather"]);
        const outputs = call!.toolResults.map((r) => r.output as { city: unknown });
        assert.equal(outputs.length, 1);
        assert.equal(typeof outputs[0]!.city, "string", "the tool ran with the model's arguments");
        assert.equal(answer!.finishReason, "stop");
        assert.ok(result.text.length > 0);
        // No empty reasoning item when nothing reasoned; one when the model did.
        const reasoningParts = call!.content.filter((c) => c.type === "reasoning");
        if (thinks) assert.ok(reasoningParts.length > 0, "the reasoning item came back");
        else assert.equal(reasoningParts.length, 0, "no reasoning item without reasoning");
        assert.equal(upstreamRequests(h, p) - before, 2, "both steps reached the upstream");
        const replayed = lastUpstreamBody(h, p, model);
        if (thinks) {
          assert.match(replayed, /"signature"/, "the turn's reasoning reached the upstream again");
        } else {
          assert.doesNotMatch(replayed, /thinking|reasoning_details/);
        }
      });
    }

    await t.step("without store:false the item_reference error says what to set", async () => {
      // The SDK's default `store: true` replays the reasoning item as a reference.
      const error = await loop(h, "openai/gpt-oss-120b", {}).catch((e) => e);
      assert.ok(APICallError.isInstance(error), Deno.inspect(error));
      assert.equal(error.statusCode, 400);
      assert.match(error.message, /item_reference/);
      assert.match(error.message, /store: false/);
    });
  });
});
