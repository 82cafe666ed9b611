/**
 * The pass-through's per-event check (`needsParse`: may this chunk's rest carry something the
 * client encoder would send differently?) is one regular expression. It must decide exactly as
 * the member-by-member reference below (the check as first written: one search per sign, each
 * key's value read after its colon) on every text: generated from the fragments that matter
 * (keys, colons, spacing, `null`, brackets, escapes, line feeds, quotes) and on the shapes real
 * upstreams write.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { needsParse } from "../../../src/providers/openai/needs_parse.ts";

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

function valueAt(text: string, afterKey: number): number {
  const colon = skipSpace(text, afterKey);
  return text[colon] === ":" ? skipSpace(text, colon + 1) : -1;
}

function allNull(text: string, key: string): boolean {
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + key.length)) {
    const value = valueAt(text, at + key.length);
    if (value === -1 || !text.startsWith("null", value)) return false;
  }
  return true;
}

function memberStarts(text: string, key: string, char: number): boolean {
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + key.length)) {
    const value = valueAt(text, at + key.length);
    if (value !== -1 && text.charCodeAt(value) === char) return true;
  }
  return false;
}

function escapesLetter(text: string): boolean {
  for (let i = text.indexOf("\\u00"); i !== -1; i = text.indexOf("\\u00", i + 4)) {
    const c = text.charCodeAt(i + 4);
    if (c >= 0x34 && c <= 0x37) return true;
  }
  return false;
}

function referenceNeedsParse(rest: string): boolean {
  if (rest.charCodeAt(rest.length - 1) !== 0x7d || rest.includes("\n")) return true;
  if (escapesLetter(rest)) return true;
  return rest.includes('"error"') || rest.includes('"model"') ||
    rest.includes('"reasoning_content"') || rest.includes('"reasoning_details"') ||
    !allNull(rest, '"usage"') || !allNull(rest, '"finish_reason"') ||
    memberStarts(rest, '"content"', 0x5b);
}

const FRAGMENTS = [
  '"usage"',
  '"finish_reason"',
  '"content"',
  '"error"',
  '"model"',
  '"reasoning_content"',
  '"reasoning_details"',
  '"reasoning"',
  '"usag"',
  '"contents"',
  ":",
  " ",
  "\t",
  "\r",
  "\n",
  "null",
  "nul",
  "Null",
  "[",
  "]",
  "{",
  "}",
  ",",
  '"',
  "\\",
  "\\u00",
  "\\u0041",
  "\\u0061",
  "\\u0030",
  "\\u005f",
  "\\u00e9",
  "4",
  "7",
  "8",
  "text",
  '"stop"',
  "0",
];

const restArb = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 24 }).map((parts) =>
  parts.join("")
);

Deno.test("needsParse decides as the member-by-member reference on generated texts", () => {
  fc.assert(
    fc.property(restArb, fc.boolean(), (rest, close) => {
      const text = close ? `${rest}}` : rest;
      assert.equal(needsParse(text), referenceNeedsParse(text), JSON.stringify(text));
    }),
    { numRuns: 20_000 },
  );
});

Deno.test("needsParse on the shapes upstreams write", () => {
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
    assert.equal(referenceNeedsParse(rest), expected, `reference: ${rest}`);
    assert.equal(needsParse(rest), expected, rest);
  }
});
