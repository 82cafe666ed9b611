/**
 * Claude 4.5 on Bedrock and Vertex refuses `temperature` together with `top_p` (400). The
 * catalog's family rule (`exclusive_parameters: [["temperature", "top_p"]]`) keeps temperature and
 * drops top_p, named in `x-sovra-dropped-params`; the platform simulators answer as the platforms
 * do, so without the rule the request fails.
 */
import assert from "node:assert/strict";
import { startShippedGateway } from "../../helpers/shipped_catalog.ts";

const BOTH = { temperature: 0.3, top_p: 0.9, messages: [{ role: "user", content: "Hi" }] };

Deno.test("Claude 4.5 — temperature wins, top_p is dropped and named, on Bedrock and on Vertex", async () => {
  await using g = await startShippedGateway();
  // Sonnet 4.5: Bedrock primary; Opus 4.5: Vertex primary.
  const sonnet = await g.post("/v1/chat/completions", {
    ...BOTH,
    model: "anthropic/claude-sonnet-4-5",
  });
  assert.equal(sonnet.status, 200, await sonnet.clone().text());
  assert.equal(sonnet.headers.get("x-sovra-dropped-params"), "top_p");
  const converse = g.bedrock.requests.at(-1)!.body as { inferenceConfig: Record<string, unknown> };
  assert.equal(converse.inferenceConfig.temperature, 0.3);
  assert.equal("topP" in converse.inferenceConfig, false);

  const opus = await g.post("/v1/chat/completions", {
    ...BOTH,
    stream: true,
    model: "anthropic/claude-opus-4-5",
  });
  assert.equal(opus.status, 200, await opus.clone().text());
  assert.equal(opus.headers.get("x-sovra-dropped-params"), "top_p");
  await opus.text();
  const messages = g.vertex.requests.at(-1)!.body as Record<string, unknown>;
  assert.equal(messages.temperature, 0.3);
  assert.equal("top_p" in messages, false);
  assert.deepEqual(g.violations(), []);
});

Deno.test("Claude 4.5 — without the family rule the platform refuses both (the simulators answer as Bedrock does)", async () => {
  await using g = await startShippedGateway(async (dir) => {
    const models = JSON.parse(await Deno.readTextFile(`${dir}/models.json`));
    for (const m of models.models) delete m.exclusive_parameters;
    await Deno.writeTextFile(`${dir}/models.json`, JSON.stringify(models));
  });
  const response = await g.post("/v1/chat/completions", {
    ...BOTH,
    model: "anthropic/claude-haiku-4-5",
  });
  assert.equal(response.status, 400);
  assert.match(
    (await response.json()).error.message,
    /temperature and top_p cannot both be specified/,
  );
});

Deno.test("Claude Sonnet 4 — not in the 4.5 family: both parameters still reach Bedrock", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    ...BOTH,
    model: "anthropic/claude-sonnet-4",
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("x-sovra-dropped-params"), null);
  const converse = g.bedrock.requests.at(-1)!.body as { inferenceConfig: Record<string, unknown> };
  assert.equal(converse.inferenceConfig.topP, 0.9);
});
