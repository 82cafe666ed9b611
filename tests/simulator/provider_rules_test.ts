/**
 * The openai simulator under `/provider/<schema>/v1` behaves as that provider does with a field
 * outside its schema (`catalog/provider_schemas/<schema>.json`): Mistral answers 422 with
 * FastAPI's `extra_forbidden` detail inside its own error object; a provider whose behaviour is
 * unknown (IONOS) goes on without the field. Every such field is recorded.
 */
import assert from "node:assert/strict";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";

const chat = (url: string, body: unknown) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

Deno.test("simulator as Mistral — stream_options, a user name and an unlisted effort are 422 extra_forbidden / enum", async () => {
  await using sim = await startOpenAISimulator();
  const url = sim.urlFor("mistral");
  const refused = await chat(url, {
    model: "mistral-large-2512",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Hi", name: "alice" }],
  });
  assert.equal(refused.status, 422);
  const body = await refused.json();
  assert.equal(body.object, "error");
  assert.equal(body.type, "invalid_request_error");
  assert.deepEqual(body.message.detail.map((d: { loc: unknown }) => d.loc), [
    ["body", "stream_options"],
    ["body", "messages", 0, "user", "name"],
  ]);
  assert.equal(body.message.detail[0].type, "extra_forbidden");
  assert.equal(body.message.detail[0].msg, "Extra inputs are not permitted");

  const effort = await chat(url, {
    model: "mistral-medium-3-5",
    reasoning_effort: "medium",
    messages: [{ role: "user", content: "Hi" }],
  });
  assert.equal(effort.status, 422);
  assert.equal((await effort.json()).message.detail[0].type, "enum");
  assert.equal(sim.violations.length, 3);
});

Deno.test("simulator as Mistral — usage rides on the last chunk without stream_options; random_seed is read", async () => {
  await using sim = await startOpenAISimulator();
  const response = await chat(sim.urlFor("mistral"), {
    model: "mistral-large-2512",
    stream: true,
    random_seed: 3,
    messages: [{ role: "user", content: "Hi there" }],
  });
  assert.equal(response.status, 200);
  const events = (await response.text()).split("\n\n").filter((e) => e.startsWith("data: {"));
  const last = JSON.parse(events.at(-1)!.slice(6));
  assert.equal(last.choices[0].finish_reason, "stop");
  assert.ok(last.usage.prompt_tokens > 0);
  assert.deepEqual(sim.violations, []);
});

Deno.test("simulator as IONOS — a field outside its schema is not used (no usage without asking) and recorded", async () => {
  await using sim = await startOpenAISimulator();
  const response = await chat(sim.urlFor("ionos"), {
    model: "meta-llama/Llama-3.3-70B-Instruct",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Hi" }],
  });
  assert.equal(response.status, 200);
  assert.equal((await response.text()).includes('"usage":{'), false);
  assert.deepEqual(sim.violations.map((v) => v.loc), [["body", "stream_options"]]);
  // The plain URL knows no provider: anything goes.
  const plain = await chat(sim.url, {
    model: "m",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Hi", name: "a" }],
  });
  assert.equal(plain.status, 200);
  await plain.text();
  assert.equal(sim.violations.length, 1);
});
