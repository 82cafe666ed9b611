/**
 * Rules 6 and 9 on the Anthropic family (Bedrock and Vertex): a reasoning model answers with
 * `message.reasoning` and `reasoning_details`; sending the tool-call turn back with its
 * `reasoning_details` unchanged continues the loop (the simulators verify the thinking
 * signatures they issued); redacted thinking arrives only as a `reasoning.encrypted` entry;
 * `reasoning.exclude` removes both fields.
 */
import assert from "node:assert/strict";
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { type Family, platformModel, routeOf } from "../../helpers/platforms.ts";
import {
  assertErrorShape,
  isRecord,
  type Json,
  resetAll,
  upstreamCalls,
  user,
  WEATHER_TOOL,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

const CLAUDES: Family[] = ["bedrock-claude", "vertex-claude"];
const thinking = (f: Family) => `e2e/${f}-thinking`;
const redacted = (f: Family) => `e2e/${f}-redacted`;
const MODELS = CLAUDES.flatMap((f) => [
  platformModel(thinking(f), [routeOf(f, "+reasoning")], { reasoning: true }),
  platformModel(redacted(f), [routeOf(f, "+redacted")], { reasoning: true }),
]);

interface ReasoningMessage {
  content: string | null;
  reasoning?: unknown;
  reasoning_details?: unknown;
  tool_calls?: Array<
    { id: string; type: "function"; function: { name: string; arguments: string } }
  >;
}

const question = user("What is the weather in Lyon? Use the tool.");

Deno.test("POST /v1/chat/completions on the Anthropic family — reasoning, replay, redacted, exclude", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    /** Posts a non-stream chat request and returns status and JSON body. */
    const chat = async (body: Json) => {
      const res = await h.post("/v1/chat/completions", body);
      return { status: res.status, body: (await res.json()) as Json };
    };
    const messageOf = (body: Json) => {
      const choices = body.choices as Array<{ message: ReasoningMessage }> | undefined;
      const message = choices?.[0]?.message;
      assert.ok(message, JSON.stringify(body));
      return message;
    };

    for (const family of CLAUDES) {
      await t.step(
        `${family} — tool loop with reasoning replays reasoning_details unchanged`,
        async () => {
          await resetAll(h, p);
          const model = thinking(family);
          const base = { model, tools: [WEATHER_TOOL], reasoning: { effort: "low" } };
          const first = await chat({ ...base, messages: [question] });
          assert.equal(first.status, 200, JSON.stringify(first.body));
          const message = messageOf(first.body);
          assert.equal(typeof message.reasoning, "string");
          assert.ok((message.reasoning as string).length > 0);
          const details = message.reasoning_details;
          assert.ok(Array.isArray(details) && details.length > 0, "reasoning_details");
          const text = details.find((d) => isRecord(d) && d.type === "reasoning.text");
          assert.ok(isRecord(text) && typeof text.signature === "string", "signed reasoning.text");
          assert.ok(message.tool_calls?.length);
          const replay: ChatCompletionMessageParam[] = [
            question,
            {
              role: "assistant",
              content: message.content,
              tool_calls: message.tool_calls,
              reasoning_details: details,
            } as ChatCompletionMessageParam,
            ...message.tool_calls.map((c) => ({
              role: "tool" as const,
              tool_call_id: c.id,
              content: "Cloudy, 17 °C",
            })),
          ];
          const second = await chat({ ...base, messages: replay });
          assert.equal(second.status, 200, JSON.stringify(second.body));
          assert.match(messageOf(second.body).content ?? "", /Cloudy, 17 °C/);
          assert.equal(upstreamCalls(h, p), 2);
        },
      );

      await t.step(
        `${family} — a tampered signature is rejected by the upstream (400)`,
        async () => {
          await resetAll(h, p);
          const model = thinking(family);
          const base = { model, tools: [WEATHER_TOOL], reasoning: { effort: "low" } };
          const message = messageOf((await chat({ ...base, messages: [question] })).body);
          const details = (message.reasoning_details as Json[]).map((d) =>
            d.type === "reasoning.text" ? { ...d, signature: btoa("forged signature") } : d
          );
          const call = message.tool_calls?.[0];
          assert.ok(call);
          const second = await chat({
            ...base,
            messages: [
              question,
              { role: "assistant", content: null, tool_calls: [call], reasoning_details: details },
              { role: "tool", tool_call_id: call.id, content: "Cloudy" },
            ],
          });
          assert.equal(second.status, 400, JSON.stringify(second.body));
          const error = assertErrorShape(second.body);
          assert.match(String(error.message), /signature/);
        },
      );

      await t.step(
        `${family} — redacted thinking: reasoning.encrypted, no message.reasoning`,
        async () => {
          await resetAll(h, p);
          const model = redacted(family);
          const base = { model, tools: [WEATHER_TOOL], reasoning: { effort: "low" } };
          const first = await chat({ ...base, messages: [question] });
          assert.equal(first.status, 200, JSON.stringify(first.body));
          const message = messageOf(first.body);
          assert.equal(message.reasoning ?? undefined, undefined, "no message.reasoning");
          const details = message.reasoning_details;
          assert.ok(Array.isArray(details));
          const encrypted = details.filter((d) => isRecord(d) && d.type === "reasoning.encrypted");
          assert.equal(encrypted.length, 1);
          assert.ok(isRecord(encrypted[0]) && typeof encrypted[0].data === "string");
          const call = message.tool_calls?.[0];
          assert.ok(call);
          const second = await chat({
            ...base,
            messages: [
              question,
              { role: "assistant", content: null, tool_calls: [call], reasoning_details: details },
              { role: "tool", tool_call_id: call.id, content: "Windy" },
            ],
          });
          assert.equal(second.status, 200, JSON.stringify(second.body));
          assert.match(messageOf(second.body).content ?? "", /Windy/);
        },
      );

      await t.step(
        `${family} — reasoning.exclude removes reasoning and reasoning_details`,
        async () => {
          await resetAll(h, p);
          const res = await chat({
            model: thinking(family),
            messages: [user("Think, then say hello")],
            reasoning: { effort: "low", exclude: true },
          });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          const message = messageOf(res.body);
          assert.ok((message.content ?? "").length > 0);
          assert.equal(message.reasoning ?? undefined, undefined);
          assert.equal(message.reasoning_details ?? undefined, undefined);
          // Control: without exclude the same model does return reasoning.
          const control = messageOf(
            (await chat({
              model: thinking(family),
              messages: [user("Think, then say hello")],
              reasoning: { effort: "low" },
            })).body,
          );
          assert.equal(typeof control.reasoning, "string");
        },
      );

      await t.step(
        `${family} — a tool loop with reasoning.exclude continues (no thinking to replay)`,
        async () => {
          await resetAll(h, p);
          const base = {
            model: thinking(family),
            tools: [WEATHER_TOOL],
            reasoning: { effort: "low", exclude: true },
          };
          const first = await chat({ ...base, messages: [question] });
          assert.equal(first.status, 200, JSON.stringify(first.body));
          const message = messageOf(first.body);
          assert.equal(message.reasoning_details ?? undefined, undefined);
          assert.ok(message.tool_calls?.length);
          const second = await chat({
            ...base,
            messages: [
              question,
              { role: "assistant", content: message.content, tool_calls: message.tool_calls },
              ...message.tool_calls.map((c) => ({
                role: "tool",
                tool_call_id: c.id,
                content: "Sunny, 21 °C",
              })),
            ],
          });
          assert.equal(second.status, 200, JSON.stringify(second.body));
          assert.ok((messageOf(second.body).content ?? "").length > 0);
        },
      );

      await t.step(`${family} — streamed answer with reasoning still ends with usage`, async () => {
        await resetAll(h, p);
        // `reasoning` is a gateway extension the SDK does not type.
        const params = {
          model: thinking(family),
          messages: [user("Think, then say hello")],
          stream: true as const,
          reasoning: { effort: "low", exclude: true },
        } as ChatCompletionCreateParamsStreaming;
        const stream = await h.client.chat.completions.create(params);
        let text = "";
        let usage: unknown;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? "";
          const delta = chunk.choices[0]?.delta as Json | undefined;
          assert.equal(delta?.reasoning ?? undefined, undefined, "exclude holds in streams");
          assert.equal(delta?.reasoning_details ?? undefined, undefined);
          usage = chunk.usage ?? usage;
        }
        assert.ok(text.length > 0);
        assert.ok(usage);
      });
    }
  });
});
