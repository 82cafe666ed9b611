/**
 * Byte-stable forwarding on the common (`openai`) dialect (docs/costs.md "Byte-stable bodies"):
 * providers cache prompts by their bytes, so the body the provider receives is the client's own
 * text — key order, whitespace, `1.0`, `\u00e9` escapes kept — with only what had to change edited
 * in place: the model id, a dropped parameter, the stream's usage option. Compared byte for byte
 * with what the simulator received.
 */
import assert from "node:assert/strict";
import {
  chatModel,
  DEFAULT_CHAT_PARAMS,
  type Harness,
  startHarness,
} from "../../helpers/harness.ts";

const CLIENT_MODEL = `"model" :  "acme/chat"`;
const MESSAGES =
  `"messages" : [ {"role":"system","content":"Tu es un assistant. Caf\\u00e9 \\u2014 cr\\u00e8me."},
                 {"content": "Bonjour !", "role": "user", "name":"L\\u00e9a"} ]`;

function clientBody(extra = ""): string {
  return `{\n  ${MESSAGES},\n  ${CLIENT_MODEL},\n  "temperature": 1.0,\n  "max_tokens": 64${extra}\n}`;
}

async function send(h: Harness, text: string): Promise<string> {
  const before = h.sim.requests.length;
  const res = await h.post("/v1/chat/completions", text);
  assert.equal(res.status, 200, await res.clone().text());
  await res.text();
  const received = h.sim.requests.slice(before).find((r) => r.path === "/v1/chat/completions");
  assert.ok(received?.text !== undefined, "the simulator recorded the body's text");
  return received.text;
}

Deno.test("POST /v1/chat/completions — the openai-dialect body is the client's bytes with only the model id changed", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const sent = clientBody();
  const received = await send(h, sent);
  assert.equal(received, sent.replace(CLIENT_MODEL, `"model" :  "sim-chat"`));
});

Deno.test("POST /v1/chat/completions — a dropped parameter and the stream's usage option leave the other bytes as sent", async () => {
  await using h = await startHarness({
    models: [
      chatModel("acme/chat", "sim-chat", {
        supported_parameters: DEFAULT_CHAT_PARAMS.filter((p) => p !== "temperature"),
      }),
    ],
  });
  // temperature is not supported on this model: rule 1 drops it; the rest is unchanged.
  const received = await send(h, clientBody());
  assert.ok(received.startsWith(`{\n  ${MESSAGES},\n  "model" :  "sim-chat",`), received);
  assert.ok(received.includes(`"max_tokens": 64`), received);
  assert.equal(JSON.parse(received).temperature, undefined);

  const stream = clientBody(`,\n  "stream":true`);
  const streamed = await send(h, stream);
  const body = JSON.parse(streamed);
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.ok(streamed.startsWith(`{\n  ${MESSAGES},\n  "model" :  "sim-chat",`), streamed);
  assert.ok(streamed.includes(`"max_tokens": 64,\n  "stream":true`), streamed);
});
