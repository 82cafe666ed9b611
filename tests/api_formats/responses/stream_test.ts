/**
 * The raw Responses stream of every dialect, checked by the strict stream validator (framing,
 * `sequence_number` 0, 1, 2 …, lifecycle order, balanced added/done pairs, deltas adding up,
 * terminal output = closed items, final usage). An upstream failure after the first byte ends
 * the stream cleanly with `response.failed` after closing the open items: not a dropped
 * connection, and no fallback to the standby.
 */
import assert from "node:assert/strict";
import { expectedCost, platformModel, routeOf } from "../../helpers/platforms.ts";
import {
  lastRow,
  readToEnd,
  resetAll,
  upstreamCalls,
  WEATHER_TOOL_FLAT,
  withPlatforms,
} from "../../helpers/platform_suite.ts";
import {
  assertUsage,
  type ValidatedStream,
  validateResponsesStream,
} from "../../helpers/responses_stream.ts";
import { dialectModels, DIALECTS, openaiBodies, upstreamUsage } from "./upstream_dialects.ts";

const BREAKING = [
  {
    name: "openai drop-after-3",
    model: "e2e/openai-drops",
    standbyCalls: "bedrock" as const,
  },
  {
    name: "bedrock exception-after-2",
    model: "e2e/bedrock-breaks",
    standbyCalls: "vertex" as const,
  },
  {
    name: "vertex exception-after-4",
    model: "e2e/vertex-breaks",
    standbyCalls: "bedrock" as const,
  },
];

const MODELS = [
  ...dialectModels(),
  platformModel("e2e/bedrock-redacted", [routeOf("bedrock-claude", "+redacted")], {
    reasoning: true,
  }),
  platformModel("e2e/vertex-redacted", [routeOf("vertex-claude", "+redacted")], {
    reasoning: true,
  }),
  platformModel("e2e/openai-drops", [
    { provider: "sim-a", upstream_model: "sim-chat+drop-after-3" },
    routeOf("bedrock-claude"),
  ]),
  platformModel("e2e/bedrock-breaks", [
    routeOf("bedrock-claude", "+exception-after-2"),
    routeOf("vertex-claude"),
  ]),
  platformModel("e2e/vertex-breaks", [
    routeOf("vertex-claude", "+exception-after-4"),
    routeOf("bedrock-claude"),
  ]),
];

Deno.test("POST /v1/responses stream — validated on every dialect, response.failed on breaks", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    /** Streams a request and validates the raw SSE. */
    const streamed = async (body: Record<string, unknown>): Promise<ValidatedStream> => {
      const res = await h.post("/v1/responses", { ...body, stream: true });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
      const { text, clean } = await readToEnd(res);
      assert.ok(clean, "the stream ends cleanly, not as a dropped connection");
      return validateResponsesStream(text);
    };
    const types = (s: ValidatedStream) => new Set(s.events.map((e) => e.type));

    for (const d of DIALECTS) {
      await t.step(`${d.name} — text stream`, async () => {
        await resetAll(h, p);
        const s = await streamed({ model: d.plain, input: "Say hello" });
        assert.equal(s.terminal, "response.completed");
        assert.ok(types(s).has("response.output_text.delta"));
        const usage = assertUsage(s.response);
        const reported = upstreamUsage(d.name, p);
        if (reported) {
          assert.equal(usage.input_tokens, reported.prompt);
          assert.equal(usage.output_tokens, reported.completion);
        }
        const row = await lastRow(h);
        assert.equal(row.endpoint, "responses");
        assert.equal(row.stream, true);
        assert.equal(row.prompt_tokens, usage.input_tokens);
        assert.equal(row.completion_tokens, usage.output_tokens);
        assert.equal(
          row.cost_micro_eur,
          expectedCost(Number(usage.input_tokens), Number(usage.output_tokens)),
        );
      });

      await t.step(`${d.name} — reasoning stream`, async () => {
        await resetAll(h, p);
        const s = await streamed({
          model: d.thinking,
          input: "Think, then say hello",
          reasoning: { effort: "low" },
        });
        assert.equal(s.terminal, "response.completed");
        assert.ok(types(s).has("response.reasoning_text.delta"));
        assert.deepEqual(
          s.response.output.map((o) => (o as { type: string }).type),
          ["reasoning", "message"],
        );
        assertUsage(s.response);
      });

      await t.step(`${d.name} — function call stream`, async () => {
        await resetAll(h, p);
        const s = await streamed({
          model: d.plain,
          input: "Weather in Lyon? Use the tool.",
          tools: [WEATHER_TOOL_FLAT],
        });
        assert.equal(s.terminal, "response.completed");
        assert.ok(types(s).has("response.function_call_arguments.delta"));
        const call = s.response.output.find((o) =>
          (o as { type: string }).type === "function_call"
        ) as { call_id: string; name: string; arguments: string } | undefined;
        assert.ok(call);
        assert.ok(call.call_id.length > 0);
        assert.equal(call.name, "get_weather");
        JSON.parse(call.arguments);
        assertUsage(s.response);
      });
    }

    for (const d of DIALECTS) {
      await t.step(`${d.name} — reasoning then function call stream`, async () => {
        await resetAll(h, p);
        const s = await streamed({
          model: d.thinking,
          input: "Weather in Lyon? Use the tool.",
          tools: [WEATHER_TOOL_FLAT],
          reasoning: { effort: "low" },
        });
        assert.equal(s.terminal, "response.completed");
        const kinds = s.response.output.map((o) => (o as { type: string }).type);
        assert.equal(kinds[0], "reasoning");
        assert.ok(kinds.includes("function_call"), kinds.join());
        assertUsage(s.response);
      });
    }

    for (const model of ["e2e/bedrock-redacted", "e2e/vertex-redacted"]) {
      await t.step(
        `${model} — redacted thinking stream: a reasoning item without text`,
        async () => {
          await resetAll(h, p);
          const s = await streamed({ model, input: "Say hello", reasoning: { effort: "low" } });
          assert.equal(s.terminal, "response.completed");
          const first = s.response.output[0] as Record<string, unknown>;
          assert.equal(first.type, "reasoning");
          const details = first.reasoning_details as Array<{ type: string }>;
          assert.deepEqual(details.map((d) => d.type), ["reasoning.encrypted"]);
          assert.ok(!s.events.some((e) => e.type === "response.reasoning_text.delta"));
        },
      );
    }

    for (const b of BREAKING) {
      await t.step(
        `${b.name} — response.failed after closing open items, no fallback`,
        async () => {
          await resetAll(h, p);
          const s = await streamed({ model: b.model, input: "Say hello" });
          assert.equal(s.terminal, "response.failed");
          assert.equal(s.response.status, "failed");
          assert.ok(
            s.events.some((e) => e.type === "response.output_item.added"),
            "the break came after output had started",
          );
          const standby = b.standbyCalls === "bedrock" ? p.bedrock.requests : p.vertex.requests;
          assert.equal(standby.length, 0, "no fallback after the first byte");
          const primaryCalls = b.model === "e2e/openai-drops"
            ? openaiBodies(h).length
            : upstreamCalls(h, p);
          assert.equal(primaryCalls, 1);
        },
      );
    }
  });
});
