/**
 * Reasoning effort on chat completions with the shipped catalog: OpenAI's top-level
 * `reasoning_effort` (what the official SDKs send) means `reasoning.effort`; the model's (and
 * route's) `supported_efforts` decide what reaches the provider: gpt-oss on Scaleway has no
 * `none` (dropped, named), Qwen3 on OVHcloud turns thinking off with `/no_think`.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { startShippedGateway } from "../../helpers/shipped_catalog.ts";

type Sent = { reasoning_effort?: string; messages: Array<{ role: string; content: string }> };

Deno.test("reasoning_effort — the OpenAI SDK's top-level field reaches the provider as the model's effort", async () => {
  await using g = await startShippedGateway();
  const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key, maxRetries: 0 });
  const answer = await client.chat.completions.create({
    model: "openai/gpt-oss-120b",
    reasoning_effort: "low",
    messages: [{ role: "user", content: "Think briefly" }],
  }).withResponse();
  assert.equal(answer.response.headers.get("x-sovra-dropped-params"), null);
  const sent = g.openai.requests.at(-1)!.body as Sent;
  assert.equal(g.openai.requests.at(-1)!.profile, "scaleway");
  assert.equal(sent.reasoning_effort, "low");
  // reasoning.effort wins over the top-level field.
  await g.post("/v1/chat/completions", {
    model: "openai/gpt-oss-120b",
    reasoning_effort: "low",
    reasoning: { effort: "high" },
    messages: [{ role: "user", content: "x" }],
  }).then((r) => r.text());
  assert.equal((g.openai.requests.at(-1)!.body as Sent).reasoning_effort, "high");
});

Deno.test("reasoning_effort — none on a model that cannot stop reasoning is dropped and named", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    model: "openai/gpt-oss-120b",
    reasoning_effort: "none",
    messages: [{ role: "user", content: "x" }],
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-sovra-dropped-params"), "reasoning.effort");
  assert.equal("reasoning_effort" in (g.openai.requests.at(-1)!.body as Sent), false);
});

Deno.test("reasoning_effort — none on Qwen3 at OVHcloud is OVHcloud's own switch, /no_think", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    model: "qwen/qwen3-32b",
    reasoning_effort: "none",
    messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }],
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("x-sovra-adjusted-params"), "reasoning.effort=none->/no_think");
  const sent = g.openai.requests.at(-1)!.body as Sent;
  assert.equal(g.openai.requests.at(-1)!.profile, "ovhcloud");
  assert.equal("reasoning_effort" in sent, false);
  assert.equal(sent.messages.at(-1)!.content, "Hello\n\n/no_think");
  assert.deepEqual(g.violations(), []);
});

Deno.test("reasoning_effort — an unknown value is the spec's 400 naming the field", async () => {
  await using g = await startShippedGateway();
  const response = await g.post("/v1/chat/completions", {
    model: "openai/gpt-oss-120b",
    reasoning_effort: "extreme",
    messages: [{ role: "user", content: "x" }],
  });
  assert.equal(response.status, 400);
  const body = await response.json();
  assert.equal(body.error.code, "invalid_request");
  assert.match(body.error.message, /reasoning_effort/);
});
