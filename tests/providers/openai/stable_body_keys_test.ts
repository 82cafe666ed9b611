/**
 * The byte-stable body against keys `JSON.parse` and other parsers read differently: a key
 * named like an `Object.prototype` member, and a repeated key. The text sent must parse, with
 * any parser, to the body the adapter built: a member the body dropped is not sent, and no
 * member is sent twice (a parser that keeps the first of two would read the other value).
 */
import assert from "node:assert/strict";
import { stableBody } from "../../../src/providers/openai/stable_body.ts";

const MESSAGES = [{ role: "user", content: "hi" }];

/** Every top-level key of an object's text, in order, repeats included (plain keys only). */
function topLevelKeys(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const after = text.slice(end + 1).trimStart();
      if (depth === 1 && after.startsWith(":")) keys.push(JSON.parse(text.slice(i, end + 1)));
      i = end;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return keys;
}

for (const name of ["constructor", "toString", "valueOf", "hasOwnProperty"]) {
  Deno.test(`stableBody — a client field '${name}' the body dropped is not sent`, () => {
    const text = JSON.stringify({ model: "acme/chat", messages: MESSAGES, [name]: "x", seed: 1 });
    const value = JSON.parse(text);
    // The provider's schema takes neither field: the adapter's body has dropped both.
    const body = { model: "sim-chat", messages: MESSAGES };
    const sent = stableBody(body, { text, value });
    assert.deepEqual(JSON.parse(sent), body);
    assert.deepEqual(topLevelKeys(sent), ["model", "messages"]);
  });
}

Deno.test("stableBody — a repeated model key is sent once, when the model id needs no edit", () => {
  // The catalog id is the upstream id (as for some routes): the last `model` is what was routed.
  const text =
    `{"model":"acme/dear","model":"acme/cheap","messages":[{"role":"user","content":"hi"}]}`;
  const value = JSON.parse(text);
  const body = { model: "acme/cheap", messages: MESSAGES };
  const sent = stableBody(body, { text, value });
  assert.deepEqual(JSON.parse(sent), body);
  assert.deepEqual(topLevelKeys(sent), ["model", "messages"]);
});

Deno.test("stableBody — a repeated key is sent once, when another member is edited", () => {
  const text =
    `{"model":"acme/chat","max_tokens":100000,"max_tokens":10,"temperature":1,"messages":[{"role":"user","content":"hi"}]}`;
  const value = JSON.parse(text);
  // temperature dropped (rule 1), the model id replaced; max_tokens as validated: 10.
  const body = { model: "sim-chat", max_tokens: 10, messages: MESSAGES };
  const sent = stableBody(body, { text, value });
  assert.deepEqual(JSON.parse(sent), body);
  assert.deepEqual(topLevelKeys(sent), ["model", "max_tokens", "messages"]);
});

Deno.test("stableBody — an escaped key repeating another is sent once", () => {
  const text = `{"\\u006dodel":"acme/dear","model":"acme/cheap","messages":[]}`;
  const value = JSON.parse(text);
  const body = { model: "acme/cheap", messages: [] };
  const sent = stableBody(body, { text, value });
  assert.deepEqual(JSON.parse(sent), body);
  assert.deepEqual(topLevelKeys(sent), ["model", "messages"]);
});
