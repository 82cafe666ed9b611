/**
 * The pass-through's per-event check (`needsParse`: may this chunk's rest, after the learnt
 * head, carry something the client encoder would send differently?). The chunk must be parsed
 * exactly when its rest is not one closed object, holds a raw line feed (multi-line data) or a
 * `\u00XX` escape of a character from `@` to DEL (a key could hide in it), or when the chunk
 * says something the encoder rewrites: an `error` or a `model`, reasoning (`reasoning_content`,
 * `reasoning_details`), a `usage` or `finish_reason` that is not null, content parts (a
 * `content` array). Checked on chunks generated as upstreams write them (any whitespace between
 * tokens, escaped letters) and on the shapes real upstreams write.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { needsParse } from "../../../src/providers/openai/needs_parse.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON with the given whitespace between tokens, some letters of strings as `\u00XX`. */
function write(value: Json, space: () => string, escape: () => boolean): string {
  const str = (text: string) =>
    JSON.stringify(text).replace(
      /[A-Za-z]/g,
      (c) => escape() ? `\\u00${c.charCodeAt(0).toString(16)}` : c,
    );
  if (value === null || typeof value !== "object") {
    return typeof value === "string" ? str(value) : JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${space()}${
      value.map((v) => write(v, space, escape)).join(`${space()},${space()}`)
    }${space()}]`;
  }
  return members(value, space, escape) + space() + "}";
}

/** An object's members, each `,"key":value` (a rest starts so, after the learnt head). */
function members(value: { [key: string]: Json }, space: () => string, escape: () => boolean) {
  const keyed = (key: string) => JSON.stringify(key); // keys are never escaped by upstreams here
  return Object.entries(value).map(([k, v]) =>
    `,${space()}${keyed(k)}${space()}:${space()}${write(v, space, escape)}`
  ).join("").replace(/^,/, "{");
}

/** What the chunk says that the client encoder rewrites. */
function saysSomething(value: Json, key?: string): boolean {
  if (key === "usage" || key === "finish_reason") return value !== null;
  if (key === "content" && Array.isArray(value)) return true;
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((v) => saysSomething(v));
  return Object.entries(value).some(([k, v]) =>
    ["error", "model", "reasoning_content", "reasoning_details"].includes(k) ||
    saysSomething(v, k)
  );
}

const text = fc.constantFrom(
  "This ",
  "",
  "é",
  "Grüße",
  "a\nb",
  'say "model"',
  "usage: null",
  "\\u",
);
const delta = fc.record({
  role: fc.constantFrom("assistant"),
  content: fc.oneof(text, fc.constant(null), fc.constant([{ type: "text", text: "x" }])),
  reasoning_content: text,
  tool_calls: fc.constant([{ index: 0, id: "call_1", function: { arguments: "{}" } }]),
}, { requiredKeys: [] });
const chunk = fc.record({
  service_tier: fc.constantFrom("default"),
  choices: fc.array(
    fc.record({
      index: fc.constant(0),
      delta,
      logprobs: fc.constant(null),
      finish_reason: fc.constantFrom(null, null, "stop", "tool_calls"),
    }, { requiredKeys: ["index", "delta"] }),
    { maxLength: 2 },
  ),
  usage: fc.oneof(fc.constant(null), fc.constant({ prompt_tokens: 1, completion_tokens: 2 })),
  system_fingerprint: fc.constantFrom("fp_1"),
  error: fc.constant({ message: "x" }),
  model: fc.constantFrom("gpt-x"),
}, { requiredKeys: ["choices"] }) as unknown as fc.Arbitrary<{ [key: string]: Json }>;

Deno.test("needsParse — parses exactly the chunks that say something the encoder rewrites", () => {
  fc.assert(
    fc.property(
      chunk,
      fc.array(fc.constantFrom("", "", "", " ", "\t", "\r", "\n"), { minLength: 1 }),
      fc.oneof(fc.constant([false]), fc.array(fc.constantFrom(false, false, false, true))),
      fc.boolean(),
      (value, spaces, escapes, closed) => {
        let i = 0;
        let j = 0;
        const space = () => spaces[i++ % spaces.length]!;
        const escape = () => escapes[j++ % escapes.length] === true;
        // The rest after the head: the members, each led by a comma, then the closing brace.
        const whole = write(value, space, escape);
        const rest = "," + whole.slice(1, closed ? undefined : -1);
        const expected = !closed || rest.includes("\n") || /\\u00[4-7]/.test(rest) ||
          saysSomething(value);
        assert.equal(needsParse(rest), expected, JSON.stringify(rest));
      },
    ),
    { numRuns: 20_000 },
  );
});

Deno.test("needsParse — the shapes upstreams write", () => {
  const cases: Array<[string, boolean]> = [
    [
      ',"service_tier":"default","choices":[{"index":0,"delta":{"content":"This "},"logprobs":null,"finish_reason":null}],"usage":null}',
      false,
    ],
    [',"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}', true],
    [',"choices":[],"usage":{"prompt_tokens":1}}', true],
    [',"choices":[{"delta":{"content" : [ {"type":"text"}]}}]}', true],
    [',"choices":[{"delta":{"content":"\\u0041"}}]}', true],
    [',"choices":[{"delta":{"content":"\\u00e9"}}]}', false],
    [',"choices":[{"delta":{"reasoning_content":"x"}}]}', true],
    [',"choices":[{"delta":{"content":"x"}}],"usage" :\r\t null}', false],
    [',"choices":[{"delta":{"content":"x"}}],"usage":nul}', true],
    [',"choices":[{"delta":{"content":"x"}}]', true],
    ["", true],
  ];
  for (const [rest, expected] of cases) {
    assert.equal(needsParse(rest), expected, rest);
  }
});
