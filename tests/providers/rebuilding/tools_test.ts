/**
 * Rule 6 on the rebuilding routes, through the official SDK: tool calls (streamed and not) come
 * back as `tool_calls` with ids, names and JSON arguments and `finish_reason: tool_calls`, and a
 * full tool loop (assistant turn + one `tool` message per call) is accepted by the upstream,
 * which checks alternating roles and tool_result ids.
 */
import assert from "node:assert/strict";
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import { FAMILIES, type Family, platformModel, routeOf } from "../../helpers/platforms.ts";
import {
  lastRow,
  resetAll,
  upstreamCalls,
  user,
  WEATHER_TOOL,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

const modelId = (family: Family) => `e2e/${family}`;
const MODELS = FAMILIES.map((f) => platformModel(modelId(f), [routeOf(f)]));

function assertWeatherCall(
  call: { id: string; type: string; function: { name: string; arguments: string } },
) {
  assert.equal(call.type, "function");
  assert.ok(call.id.length > 0, "tool call id");
  assert.equal(call.function.name, "get_weather");
  const args: unknown = JSON.parse(call.function.arguments);
  assert.equal(typeof (args as { city?: unknown }).city, "string", call.function.arguments);
}

Deno.test("POST /v1/chat/completions on rebuilding routes — tool calls and tool loops", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    for (const family of FAMILIES) {
      const model = modelId(family);
      const question = user("What is the weather in Lyon?");

      await t.step(`${family} — non-stream tool call`, async () => {
        await resetAll(h, p);
        const completion = await h.client.chat.completions.create({
          model,
          messages: [question],
          tools: [WEATHER_TOOL],
        });
        const choice = completion.choices[0];
        assert.equal(choice?.finish_reason, "tool_calls");
        const calls = choice?.message.tool_calls ?? [];
        assert.equal(calls.length, 1);
        assertWeatherCall(calls[0] as ChatCompletionMessageToolCall & { type: "function" });
      });

      await t.step(`${family} — streamed tool call`, async () => {
        await resetAll(h, p);
        const stream = await h.client.chat.completions.create({
          model,
          messages: [question],
          tools: [WEATHER_TOOL],
          stream: true,
        });
        const chunks: ChatCompletionChunk[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
        assert.ok(deltas.length > 0, "delta.tool_calls present");
        const first = deltas[0];
        assert.equal(first?.index, 0);
        assert.ok(first?.id, "the first delta carries the id");
        assert.equal(first?.function?.name, "get_weather");
        const args = deltas.map((d) => d.function?.arguments ?? "").join("");
        assertWeatherCall({
          id: first.id,
          type: "function",
          function: { name: "get_weather", arguments: args },
        });
        const finish = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((
          f,
        ) => f != null);
        assert.deepEqual(finish, ["tool_calls"]);
        assert.ok(chunks.at(-1)?.usage, "usage on the last chunk");
      });

      await t.step(`${family} — full tool loop`, async () => {
        await resetAll(h, p);
        const first = await h.client.chat.completions.create({
          model,
          messages: [question],
          tools: [WEATHER_TOOL],
        });
        const message = first.choices[0]?.message;
        assert.ok(message?.tool_calls?.length);
        const messages: ChatCompletionMessageParam[] = [
          question,
          { role: "assistant", content: message.content, tool_calls: message.tool_calls },
          ...message.tool_calls.map((c) => ({
            role: "tool" as const,
            tool_call_id: c.id,
            content: "Sunny, 24 °C",
          })),
        ];
        const second = await h.client.chat.completions.create({
          model,
          messages,
          tools: [WEATHER_TOOL],
        });
        assert.equal(second.choices[0]?.finish_reason, "stop");
        assert.match(second.choices[0]?.message.content ?? "", /Sunny, 24 °C/);
        assert.equal(upstreamCalls(h, p), 2);
        const row = await lastRow(h);
        assert.equal(row.status, 200);
      });

      await t.step(`${family} — streamed tool loop continuation`, async () => {
        await resetAll(h, p);
        const first = await h.client.chat.completions.create({
          model,
          messages: [question],
          tools: [WEATHER_TOOL],
        });
        const message = first.choices[0]?.message;
        assert.ok(message?.tool_calls?.length);
        const stream = await h.client.chat.completions.create({
          model,
          messages: [
            question,
            { role: "assistant", content: null, tool_calls: message.tool_calls },
            { role: "tool", tool_call_id: message.tool_calls[0]!.id, content: "Rain" },
          ],
          tools: [WEATHER_TOOL],
          stream: true,
        });
        let text = "";
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
        assert.match(text, /Rain/);
      });
    }
  });
});
