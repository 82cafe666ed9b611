/**
 * `POST /v1/responses` through the official SDK (`responses.create` / `responses.stream`) on all
 * three dialects: text, reasoning output items, function_call items, a full tool loop replaying
 * `function_call` + `function_call_output` (and the `reasoning` item on a reasoning model;
 * omitting it is refused with 400 `input` before any upstream call). Metadata: endpoint
 * `responses`, stream flag, exact usage and cost.
 */
import assert from "node:assert/strict";
import type {
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseOutputItem,
} from "openai/resources/responses/responses";
import { expectedCost } from "../../helpers/platforms.ts";
import {
  assertErrorShape,
  lastRow,
  resetAll,
  upstreamCalls,
  WEATHER_TOOL_FLAT,
  withPlatforms,
} from "../../helpers/platform_suite.ts";
import { dialectModels, DIALECTS, openaiBodies, upstreamUsage } from "./upstream_dialects.ts";

const QUESTION = "What is the weather in Lyon? Use the tool.";

function functionCalls(output: ResponseOutputItem[]): ResponseFunctionToolCall[] {
  return output.filter((o): o is ResponseFunctionToolCall => o.type === "function_call");
}

/** The openai upstream got the assistant turn (with reasoning) and the tool result. */
function assertReplayed(
  body: Record<string, unknown> | undefined,
  callId: string,
  reasoning: boolean,
): void {
  const messages = body?.messages as Array<Record<string, unknown>> | undefined;
  assert.ok(messages);
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "tool"]);
  const assistant = messages[1]!;
  const calls = assistant.tool_calls as Array<{ id: string }>;
  assert.deepEqual(calls.map((c) => c.id), [callId]);
  assert.equal(messages[2]!.tool_call_id, callId);
  if (reasoning) {
    const details = assistant.reasoning_details;
    assert.ok(Array.isArray(details) && details.length > 0, "reasoning_details replayed");
  }
}

Deno.test("POST /v1/responses — text, reasoning, tools and tool loops on every dialect", async (t) => {
  await withPlatforms(dialectModels(), async (h, p) => {
    for (const d of DIALECTS) {
      await t.step(`${d.name} — create: text, usage, metadata`, async () => {
        await resetAll(h, p);
        const response = await h.client.responses.create({ model: d.plain, input: "Say hello" });
        assert.equal(response.model, d.plain);
        assert.equal(response.status, "completed");
        const messages = response.output.filter((o) => o.type === "message");
        assert.equal(messages.length, 1);
        assert.ok(response.output_text.length > 0);
        const usage = response.usage;
        assert.ok(usage);
        assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);
        const reported = upstreamUsage(d.name, p);
        if (reported) {
          assert.equal(usage.input_tokens, reported.prompt);
          assert.equal(usage.output_tokens, reported.completion);
        }
        const row = await lastRow(h);
        assert.equal(row.endpoint, "responses");
        assert.equal(row.stream, false);
        assert.equal(row.status, 200);
        assert.equal(row.requested_model, d.plain);
        assert.equal(row.prompt_tokens, usage.input_tokens);
        assert.equal(row.completion_tokens, usage.output_tokens);
        assert.ok(row.cost_micro_eur > 0, "billed");
        assert.equal(row.cost_micro_eur, expectedCost(usage.input_tokens, usage.output_tokens));
      });

      await t.step(`${d.name} — stream: final response, usage, metadata`, async () => {
        await resetAll(h, p);
        const stream = h.client.responses.stream({ model: d.plain, input: "Say hello" });
        let deltas = "";
        for await (const event of stream) {
          if (event.type === "response.output_text.delta") deltas += event.delta;
        }
        const final = await stream.finalResponse();
        assert.equal(final.status, "completed");
        assert.equal(final.output_text, deltas);
        assert.ok(deltas.length > 0);
        const usage = final.usage;
        assert.ok(usage);
        const reported = upstreamUsage(d.name, p);
        if (reported) assert.equal(usage.input_tokens, reported.prompt);
        const row = await lastRow(h);
        assert.equal(row.endpoint, "responses");
        assert.equal(row.stream, true);
        assert.equal(row.prompt_tokens, usage.input_tokens);
        assert.equal(row.completion_tokens, usage.output_tokens);
        assert.equal(row.cost_micro_eur, expectedCost(usage.input_tokens, usage.output_tokens));
      });

      await t.step(`${d.name} — reasoning model: a reasoning item before the message`, async () => {
        await resetAll(h, p);
        const response = await h.client.responses.create({
          model: d.thinking,
          input: "Think, then say hello",
          reasoning: { effort: "low" },
        });
        const types = response.output.map((o) => o.type);
        assert.deepEqual(types, ["reasoning", "message"]);
        const reasoning = response.output[0] as unknown as Record<string, unknown>;
        assert.ok(Array.isArray(reasoning.reasoning_details), "reasoning_details on the item");
        assert.ok(response.output_text.length > 0);
      });

      for (const stream of [false, true]) {
        await t.step(`${d.name} — function_call item${stream ? " (stream)" : ""}`, async () => {
          await resetAll(h, p);
          const params = { model: d.plain, input: QUESTION, tools: [WEATHER_TOOL_FLAT] };
          const response = stream
            ? await h.client.responses.stream(params).finalResponse()
            : await h.client.responses.create(params);
          const calls = functionCalls(response.output);
          assert.equal(calls.length, 1);
          const call = calls[0]!;
          assert.ok(call.call_id.length > 0);
          assert.equal(call.name, "get_weather");
          assert.equal(typeof (JSON.parse(call.arguments) as { city?: unknown }).city, "string");
        });
      }

      await t.step(`${d.name} — full tool loop replaying function_call + output`, async () => {
        await resetAll(h, p);
        const first = await h.client.responses.create({
          model: d.plain,
          input: QUESTION,
          tools: [WEATHER_TOOL_FLAT],
        });
        const call = functionCalls(first.output)[0];
        assert.ok(call);
        const input: ResponseInputItem[] = [
          { role: "user", content: QUESTION },
          ...(first.output as ResponseInputItem[]),
          { type: "function_call_output", call_id: call.call_id, output: "Sunny, 24 °C" },
        ];
        const second = await h.client.responses.create({
          model: d.plain,
          input,
          tools: [WEATHER_TOOL_FLAT],
        });
        assert.equal(second.status, "completed");
        assert.equal(functionCalls(second.output).length, 0);
        assert.ok(second.output_text.length > 0);
        if (d.name === "openai") assertReplayed(openaiBodies(h).at(-1), call.call_id, false);
        else assert.match(second.output_text, /Sunny, 24 °C/);
        assert.equal(upstreamCalls(h, p), 2);
      });

      await t.step(`${d.name} — reasoning tool loop replays the reasoning item`, async () => {
        await resetAll(h, p);
        const base = {
          model: d.thinking,
          tools: [WEATHER_TOOL_FLAT],
          reasoning: { effort: "low" as const },
        };
        const first = await h.client.responses.create({ ...base, input: QUESTION });
        assert.equal(first.output[0]?.type, "reasoning");
        const call = functionCalls(first.output)[0];
        assert.ok(call);
        const output: ResponseInputItem = {
          type: "function_call_output",
          call_id: call.call_id,
          output: "Cloudy, 17 °C",
        };
        const replay: ResponseInputItem[] = [
          { role: "user", content: QUESTION },
          ...(first.output as ResponseInputItem[]),
          output,
        ];
        const second = await h.client.responses.create({ ...base, input: replay });
        assert.equal(second.status, "completed");
        if (d.name === "openai") assertReplayed(openaiBodies(h).at(-1), call.call_id, true);
        else assert.match(second.output_text, /Cloudy, 17 °C/);
        assert.equal(upstreamCalls(h, p), 2);

        // Without the reasoning item: refused before any upstream call.
        await resetAll(h, p);
        const res = await h.post("/v1/responses", {
          ...base,
          input: [
            { role: "user", content: QUESTION },
            ...first.output.filter((o) => o.type !== "reasoning"),
            output,
          ],
        });
        const body = await res.json();
        assert.equal(res.status, 400, JSON.stringify(body));
        assertErrorShape(body, "input");
        assert.equal(upstreamCalls(h, p), 0);
      });

      await t.step(
        `${d.name} — reasoning tool loop from a streamed response, streamed again`,
        async () => {
          await resetAll(h, p);
          const base = {
            model: d.thinking,
            tools: [WEATHER_TOOL_FLAT],
            reasoning: { effort: "low" as const },
          };
          const first = await h.client.responses.stream({ ...base, input: QUESTION })
            .finalResponse();
          assert.equal(first.output[0]?.type, "reasoning");
          const call = functionCalls(first.output)[0];
          assert.ok(call);
          const second = await h.client.responses.stream({
            ...base,
            input: [
              { role: "user", content: QUESTION },
              ...(first.output as ResponseInputItem[]),
              { type: "function_call_output", call_id: call.call_id, output: "Hail, 3 °C" },
            ],
          }).finalResponse();
          assert.equal(second.status, "completed");
          if (d.name === "openai") assertReplayed(openaiBodies(h).at(-1), call.call_id, true);
          else assert.match(second.output_text, /Hail, 3 °C/);
        },
      );
    }
  });
});
