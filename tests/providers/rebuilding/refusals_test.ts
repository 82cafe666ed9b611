/**
 * Rules 7 and 8 over HTTP: on rebuilding routes what the upstream cannot express is refused
 * with 400 naming the field (`error.code` and `error.param`) before any upstream call;
 * `response_format` is ignored (200). Values the platform can express are not refused.
 */
import assert from "node:assert/strict";
import { FAMILIES, type Family, platformModel, routeOf } from "../../helpers/platforms.ts";
import {
  assertRefused,
  type Json,
  resetAll,
  upstreamCalls,
  user,
  WEATHER_TOOL,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

const plain = (f: Family) => `e2e/${f}`;
const thinking = (f: Family) => `e2e/${f}-thinking`;
const MODELS = FAMILIES.flatMap((f) => [
  platformModel(plain(f), [routeOf(f)]),
  platformModel(thinking(f), [routeOf(f, "+reasoning")], { reasoning: true }),
]);
const BEDROCK: Family[] = ["bedrock-claude", "bedrock-nova"];
const CLAUDES: Family[] = ["bedrock-claude", "vertex-claude"];
const messages = [user("What is the weather in Lyon?")];
const named = { type: "function", function: { name: "get_weather" } };

interface Case {
  name: string;
  body: Json;
  field: string;
}

function refusalCases(): Array<Case & { family: Family }> {
  const cases: Array<Case & { family: Family }> = [];
  for (const family of BEDROCK) {
    const model = plain(family);
    cases.push(
      {
        family,
        name: "tool_choice none",
        field: "tool_choice",
        body: { model, messages, tools: [WEATHER_TOOL], tool_choice: "none" },
      },
      {
        family,
        name: "parallel_tool_calls false",
        field: "parallel_tool_calls",
        body: { model, messages, tools: [WEATHER_TOOL], parallel_tool_calls: false },
      },
    );
  }
  for (const family of CLAUDES) {
    const model = thinking(family);
    const reasoning = { effort: "low" };
    cases.push(
      {
        family,
        name: "tool_choice required with reasoning",
        field: "tool_choice",
        body: { model, messages, tools: [WEATHER_TOOL], tool_choice: "required", reasoning },
      },
      {
        family,
        name: "named tool with reasoning",
        field: "tool_choice",
        body: { model, messages, tools: [WEATHER_TOOL], tool_choice: named, reasoning },
      },
    );
  }
  for (const family of FAMILIES) {
    const model = plain(family);
    cases.push(
      {
        family,
        name: "hosted web_search tool",
        field: "tools",
        body: { model, messages, tools: [WEATHER_TOOL, { type: "web_search" }] },
      },
      {
        family,
        name: "hosted MCP tool",
        field: "tools",
        body: {
          model,
          messages,
          tools: [{ type: "mcp", server_label: "docs", server_url: "https://mcp.example/sse" }],
        },
      },
    );
  }
  return cases;
}

Deno.test("POST /v1/chat/completions on rebuilding routes — rule 7 refusals and rule 8", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    for (const c of refusalCases()) {
      for (const stream of [false, true]) {
        await t.step(
          `${c.family} — ${c.name}${stream ? " (stream)" : ""} → 400 ${c.field}, no upstream call`,
          async () => {
            await resetAll(h, p);
            const res = await h.post("/v1/chat/completions", { ...c.body, stream });
            await assertRefused(res, c.field);
            assert.equal(upstreamCalls(h, p), 0, "no upstream call");
          },
        );
      }
    }

    await t.step(
      "vertex-claude — tool_choice none and parallel_tool_calls false pass (200)",
      async () => {
        await resetAll(h, p);
        const none = await h.post("/v1/chat/completions", {
          model: plain("vertex-claude"),
          messages,
          tools: [WEATHER_TOOL],
          tool_choice: "none",
        });
        const body = await none.json();
        assert.equal(none.status, 200, JSON.stringify(body));
        assert.equal(body.choices[0].finish_reason, "stop", "tool_choice none calls no tool");
        const parallel = await h.post("/v1/chat/completions", {
          model: plain("vertex-claude"),
          messages,
          tools: [WEATHER_TOOL],
          parallel_tool_calls: false,
        });
        assert.equal(parallel.status, 200, await parallel.text());
      },
    );

    for (const family of CLAUDES) {
      await t.step(`${family} — a forced tool without reasoning is not refused`, async () => {
        await resetAll(h, p);
        for (const tool_choice of ["required", named]) {
          const res = await h.post("/v1/chat/completions", {
            model: plain(family),
            messages,
            tools: [WEATHER_TOOL],
            tool_choice,
          });
          const body = await res.json();
          assert.equal(res.status, 200, JSON.stringify(body));
          assert.equal(body.choices[0].finish_reason, "tool_calls");
          assert.equal(body.choices[0].message.tool_calls[0].function.name, "get_weather");
        }
      });
    }

    for (const family of FAMILIES) {
      await t.step(`${family} — response_format is ignored (200)`, async () => {
        await resetAll(h, p);
        for (
          const response_format of [
            { type: "json_object" },
            {
              type: "json_schema",
              json_schema: {
                name: "greeting",
                schema: { type: "object", properties: { text: { type: "string" } } },
              },
            },
          ]
        ) {
          const completion = await h.client.chat.completions.create({
            model: plain(family),
            messages: [user("Say hello as JSON")],
            response_format: response_format as { type: "json_object" },
          });
          assert.ok((completion.choices[0]?.message.content ?? "").length > 0);
        }
        assert.equal(upstreamCalls(h, p), 2);
      });
    }
  });
});
