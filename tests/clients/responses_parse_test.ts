/**
 * `text.format` on `/v1/responses` becomes `response_format` where the route
 * forwards it, so the official SDK's `responses.parse` returns the parsed object; every field
 * the endpoint ignores or drops is named in `x-sovra-dropped-params`, as on chat.
 */
import assert from "node:assert/strict";
import { zodTextFormat } from "openai/helpers/zod";
import { z } from "zod";
import { chatModel, DEFAULT_CHAT_PARAMS } from "../helpers/harness.ts";
import { platformModel, routeOf } from "../helpers/platforms.ts";
import { withPlatforms } from "../helpers/platform_suite.ts";

const Weather = z.object({ city: z.string(), celsius: z.number() });

const models = () => [
  chatModel("mistral/mistral-large-2411", "sim-chat"),
  chatModel("acme/no-format", "sim-chat", {
    supported_parameters: DEFAULT_CHAT_PARAMS.filter((p) => p !== "response_format"),
  }),
  platformModel("anthropic/claude-bedrock", [routeOf("bedrock-claude")]),
];

Deno.test("responses.parse: text.format reaches the upstream as response_format", async () => {
  await withPlatforms(models(), async (h) => {
    const response = await h.client.responses.parse({
      model: "mistral/mistral-large-2411",
      input: "The weather in Lyon, as JSON.",
      text: { format: zodTextFormat(Weather, "weather") },
    });
    const parsed = response.output_parsed;
    assert.ok(parsed !== null, "the SDK parsed the answer");
    assert.equal(typeof parsed.city, "string");
    assert.equal(typeof parsed.celsius, "number");
    const upstream = h.sim.requests.at(-1)?.body as Record<string, unknown>;
    const format = upstream.response_format as Record<string, unknown>;
    assert.equal(format.type, "json_schema");
    const jsonSchema = format.json_schema as Record<string, unknown>;
    assert.equal(jsonSchema.name, "weather");
    assert.equal(jsonSchema.strict, true);
    assert.deepEqual((jsonSchema.schema as { required: string[] }).required, ["city", "celsius"]);

    const raw = await h.post("/v1/responses", {
      model: "mistral/mistral-large-2411",
      input: "JSON please",
      text: { format: { type: "json_object" } },
    });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get("x-sovra-dropped-params"), null);
    await raw.body?.cancel();
    assert.deepEqual(
      (h.sim.requests.at(-1)?.body as Record<string, unknown>).response_format,
      { type: "json_object" },
    );
  });
});

Deno.test("x-sovra-dropped-params names every ignored or dropped Responses field", async () => {
  await withPlatforms(models(), async (h) => {
    const names = async (body: Record<string, unknown>, stream = false) => {
      const response = await h.post("/v1/responses", { input: "hi", ...body, stream });
      assert.equal(response.status, 200, await response.clone().text());
      await response.body?.cancel();
      return (response.headers.get("x-sovra-dropped-params") ?? "").split(",").filter(Boolean);
    };
    const ignored = {
      model: "mistral/mistral-large-2411",
      text: { verbosity: "low" },
      truncation: "auto",
      service_tier: "flex",
      prompt_cache_key: "k1",
      include: ["message.output_text.logprobs"],
      reasoning: { effort: "low", generate_summary: "auto" },
    };
    const expected = [
      "service_tier",
      "prompt_cache_key",
      "reasoning.generate_summary",
      "text.verbosity",
      "include",
      "truncation",
    ];
    for (const stream of [false, true]) {
      assert.deepEqual((await names(ignored, stream)).sort(), [...expected].sort());
    }
    // Honoured or absent: store false, the encrypted-reasoning include, nulls, text format text.
    assert.deepEqual(
      await names({
        model: "mistral/mistral-large-2411",
        store: false,
        include: ["reasoning.encrypted_content"],
        truncation: "disabled",
        service_tier: null,
        text: { format: { type: "text" } },
      }),
      [],
    );
    // Rule 1 in the Responses API's names; rule 8 on a rebuilding route.
    assert.deepEqual(
      await names({
        model: "acme/no-format",
        text: { format: { type: "json_object" } },
      }),
      ["text.format"],
    );
    assert.deepEqual(
      await names({
        model: "anthropic/claude-bedrock",
        text: { format: { type: "json_object" } },
      }),
      ["text.format"],
    );
    // An unknown format type is ignored, and said so.
    assert.deepEqual(
      await names({ model: "mistral/mistral-large-2411", text: { format: { type: "grammar" } } }),
      ["text.format"],
    );
  });
});
