/**
 * What `POST /v1/responses` refuses, over HTTP and before any upstream call: `store: true`
 * (code `store`), any `previous_response_id`, image or file input parts (`input`), and on a
 * Bedrock model the rule-7 cases with the same field names as chat. Fields the endpoint does
 * not translate (`text.format`) are ignored: 200 on every dialect.
 */
import assert from "node:assert/strict";
import {
  assertErrorShape,
  assertRefused,
  type Json,
  resetAll,
  upstreamCalls,
  WEATHER_TOOL_FLAT,
  withPlatforms,
} from "../../helpers/platform_suite.ts";
import { platformModel, routeOf } from "../../helpers/platforms.ts";
import { dialectModels, DIALECTS } from "./upstream_dialects.ts";

const MODELS = [
  ...dialectModels(),
  platformModel("e2e/nova", [routeOf("bedrock-nova")]),
];

const IMAGE_PART = {
  type: "input_image",
  image_url: "https://example.org/cat.png",
  detail: "auto",
};
const FILE_PART = { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0=" };

function requestRefusals(model: string): Array<{ name: string; code: string; body: Json }> {
  const userWith = (part: Json) => [{
    role: "user",
    content: [{ type: "input_text", text: "Describe this" }, part],
  }];
  return [
    { name: "store true", code: "store", body: { model, input: "Hi", store: true } },
    {
      name: "previous_response_id",
      code: "previous_response_id",
      body: { model, input: "Hi", previous_response_id: "resp_0123456789" },
    },
    { name: "input_image part", code: "input", body: { model, input: userWith(IMAGE_PART) } },
    { name: "input_file part", code: "input", body: { model, input: userWith(FILE_PART) } },
  ];
}

function rule7Refusals(): Array<{ name: string; field: string; body: Json }> {
  const input = "Weather in Lyon?";
  const tools = [WEATHER_TOOL_FLAT];
  const cases: Array<{ name: string; field: string; body: Json }> = [];
  for (const model of ["e2e/bedrock", "e2e/nova"]) {
    cases.push(
      {
        name: `${model} tool_choice none`,
        field: "tool_choice",
        body: { model, input, tools, tool_choice: "none" },
      },
      {
        name: `${model} parallel_tool_calls false`,
        field: "parallel_tool_calls",
        body: { model, input, tools, parallel_tool_calls: false },
      },
      {
        name: `${model} hosted web_search`,
        field: "tools",
        body: { model, input, tools: [...tools, { type: "web_search" }] },
      },
    );
  }
  for (const model of ["e2e/bedrock-thinking", "e2e/vertex-thinking"]) {
    const reasoning = { effort: "low" };
    cases.push(
      {
        name: `${model} tool_choice required with reasoning`,
        field: "tool_choice",
        body: { model, input, tools, tool_choice: "required", reasoning },
      },
      {
        name: `${model} named function with reasoning`,
        field: "tool_choice",
        body: {
          model,
          input,
          tools,
          tool_choice: { type: "function", name: "get_weather" },
          reasoning,
        },
      },
    );
  }
  cases.push({
    name: "e2e/vertex hosted web_search",
    field: "tools",
    body: { model: "e2e/vertex", input, tools: [{ type: "web_search" }] },
  });
  return cases;
}

Deno.test("POST /v1/responses — refusals before any upstream call, text.format ignored", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    for (const d of DIALECTS) {
      for (const c of requestRefusals(d.plain)) {
        for (const stream of [false, true]) {
          await t.step(
            `${d.name} — ${c.name}${stream ? " (stream)" : ""} → 400 ${c.code}`,
            async () => {
              await resetAll(h, p);
              const res = await h.post("/v1/responses", { ...c.body, stream });
              const body: unknown = await res.json();
              assert.equal(res.status, 400, JSON.stringify(body));
              assertErrorShape(body, c.code);
              assert.equal(upstreamCalls(h, p), 0, "no upstream call");
            },
          );
        }
      }
    }

    for (const c of rule7Refusals()) {
      for (const stream of [false, true]) {
        await t.step(`${c.name}${stream ? " (stream)" : ""} → 400 ${c.field}`, async () => {
          await resetAll(h, p);
          await assertRefused(await h.post("/v1/responses", { ...c.body, stream }), c.field);
          assert.equal(upstreamCalls(h, p), 0, "no upstream call");
        });
      }
    }

    await t.step("store false and an explicit null previous_response_id are accepted", async () => {
      await resetAll(h, p);
      const res = await h.post("/v1/responses", {
        model: "e2e/bedrock",
        input: "Hi",
        store: false,
        previous_response_id: null,
      });
      assert.equal(res.status, 200, await res.text());
    });

    for (const d of DIALECTS) {
      await t.step(`${d.name} — text.format json_schema is ignored (200)`, async () => {
        await resetAll(h, p);
        const response = await h.client.responses.create({
          model: d.plain,
          input: "Say hello as JSON",
          text: {
            format: {
              type: "json_schema",
              name: "greeting",
              schema: {
                type: "object",
                properties: { text: { type: "string" } },
                required: ["text"],
                additionalProperties: false,
              },
              strict: true,
            },
          },
        });
        assert.equal(response.status, "completed");
        assert.ok(response.output_text.length > 0);
        assert.equal(upstreamCalls(h, p), 1);
      });
    }
  });
});
