/**
 * The pass-through's learnt chunk shape is a sound prefilter for `needsParse`: whenever a chunk
 * fits a shape learnt from an earlier chunk, `needsParse` of its rest says no. Checked on
 * generated shapes (real upstream layouts with inserted fragments: keys, escapes, quotes, line
 * feeds, `null`, brackets) and on chunks built to break it (bodies that spell a key, close the
 * string, escape a letter, open content parts; one fragment inserted or cut anywhere; random
 * text). The decoder is checked the same way end to end: it forwards unparsed exactly the
 * chunks the check alone would (so the bytes sent are the same), shape or no shape, also when
 * a stream changes shape (reasoning, then content) and learns again.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { PassthroughItem } from "../../../src/canonical/forwarded_chunk.ts";
import {
  type ChunkShape,
  fitsShape,
  learnShape,
  shapeDelta,
} from "../../../src/providers/openai/chunk_shape.ts";
import { convertChunk } from "../../../src/providers/openai/convert_stream.ts";
import type { ChatStreamEvent } from "../../../src/canonical/chat.ts";
import { needsParse } from "../../../src/providers/openai/needs_parse.ts";
import { openaiPassthroughDecoder } from "../../../src/providers/openai/passthrough_decoder.ts";

const HEAD =
  `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-2024-08-06"`;

/** Rests of content chunks as upstreams write them, split around the content's body. */
const LAYOUTS: Array<[string, string]> = [
  [
    ',"service_tier":"default","choices":[{"index":0,"delta":{"content":"',
    '"},"logprobs":null,"finish_reason":null}],"usage":null}',
  ],
  [
    ',"service_tier":"default","system_fingerprint":"fp_f9f4fb6dbf","choices":[{"index":0,"delta":{"content":"',
    '"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"q8"}',
  ],
  [',"choices":[{"index":0,"delta":{"content":"', '"},"finish_reason":null}]}'],
  [',"choices":[{"index":0,"delta":{"content":"', '"}}]}'],
];

/** What may be inserted into a layout: the signs `needsParse` looks for and their near misses. */
const FRAGMENTS = [
  '"usage"',
  '"finish_reason"',
  '"content"',
  '"error"',
  '"model"',
  '"reasoning_content"',
  '"reasoning_details"',
  '"reasoning"',
  "usage",
  "error",
  "content",
  "finish_reason",
  ":",
  " ",
  "\t",
  "\r",
  "\n",
  "null",
  "nul",
  "[",
  "]",
  "{",
  "}",
  ",",
  '"',
  '":"',
  '"content":"',
  "\\",
  '\\"',
  "\\u00",
  "\\u0041",
  "\\u0061",
  "\\u00e9",
  "\\n",
  "é",
  "😀",
  "This ",
  "a",
  "_",
];

/** Bodies meant to slip a sign past the shape: keys, closed strings, escapes, content parts. */
const BODY_PARTS = [
  "error",
  "model",
  "usage",
  "content",
  "finish_reason",
  "reasoning_content",
  "reasoning_details",
  "_",
  "a",
  "z",
  "A",
  " ",
  ":[",
  ":null",
  " : [",
  "[",
  "}",
  "{",
  ",",
  '"',
  '","finish_reason":"stop',
  '","model":"x',
  '"],"usage":{"total_tokens":1}, "x":["',
  '":[{"type":"text"}],"y":"',
  "\\",
  "\\u0041",
  "\\u00",
  "\\n",
  "\n",
  "\r",
  "\t",
  "é",
  "😀",
  "Zürich ",
  "harbour ",
  "This ",
];

const insert = (text: string, at: number, part: string) =>
  text.slice(0, at % (text.length + 1)) + part + text.slice(at % (text.length + 1));
const cut = (text: string, at: number, length: number) =>
  text.slice(0, at % (text.length + 1)) + text.slice((at % (text.length + 1)) + length);

/** A layout with fragments inserted into its prefix and suffix, and a first body. */
const learntArb = fc.record({
  layout: fc.constantFrom(...LAYOUTS),
  prefixInserts: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...FRAGMENTS)), { maxLength: 2 }),
  suffixInserts: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...FRAGMENTS)), { maxLength: 2 }),
  body: fc.constantFrom("The", " harbour of Marseille", "", "é 😀", 'x\\"y'),
  key: fc.constantFrom("content", "reasoning"),
}).map(({ layout: [prefix, suffix], prefixInserts, suffixInserts, body, key }) => {
  let p = prefix.slice(0, -'"content":"'.length);
  for (const [at, part] of prefixInserts) p = insert(p, at, part);
  let s = suffix.slice(1);
  for (const [at, part] of suffixInserts) s = insert(s, at, part);
  return `${p}"${key}":"${body}"${s}`;
});

const bodyArb = fc.array(fc.constantFrom(...BODY_PARTS), { maxLength: 5 }).map((p) => p.join(""));

/** A later chunk's rest: mostly the learnt parts around a hostile body, sometimes changed. */
function candidateArb(learnt: string) {
  const shape = learnShape("", learnt);
  const prefix = shape?.prefix ?? learnt.slice(0, 20);
  const suffix = shape?.suffix ?? learnt.slice(20);
  return fc.oneof(
    { weight: 6, arbitrary: bodyArb.map((body) => prefix + body + suffix) },
    {
      weight: 2,
      arbitrary: fc.tuple(bodyArb, fc.nat(), fc.constantFrom(...FRAGMENTS)).map(
        ([body, at, part]) => insert(prefix + body + suffix, at, part),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(bodyArb, fc.nat(), fc.integer({ min: 1, max: 3 })).map(
        ([body, at, length]) => cut(prefix + body + suffix, at, length),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.array(fc.constantFrom(...FRAGMENTS, ...BODY_PARTS), { maxLength: 20 }).map(
        (parts) => parts.join(""),
      ),
    },
  );
}

/** A first chunk's rest that may teach a shape, and later chunks' rests to try on it. */
const learntWithCandidates = learntArb.chain((first) =>
  fc.tuple(fc.constant(first), fc.array(candidateArb(first), { minLength: 1, maxLength: 8 }))
);

Deno.test("a chunk that fits a learnt shape never needs the parse (generated and hostile chunks)", () => {
  let learnt = 0;
  let fits = 0;
  let runs = 0;
  fc.assert(
    fc.property(
      learntWithCandidates,
      fc.constantFrom("", HEAD),
      ([first, rests], head) => {
        runs++;
        if (needsParse(first)) return; // only forwarded chunks teach a shape
        const shape = learnShape(head, first);
        if (shape === undefined) return;
        learnt++;
        assert.ok(shape.prefix.startsWith(head));
        for (const rest of rests) {
          if (!fitsShape(shape, head + rest)) continue;
          fits++;
          assert.equal(needsParse(rest), false, JSON.stringify({ shape, rest }));
        }
      },
    ),
    { numRuns: 20_000 },
  );
  // The property was put to work: shapes were learnt and many hostile chunks fitted them.
  assert.ok(learnt > runs / 4, `${learnt} shapes learnt in ${runs} runs`);
  assert.ok(fits > runs / 4, `${fits} fitting chunks in ${runs} runs`);
});

Deno.test("the shape is learnt from content chunks and fits only exact prefix + plain body + suffix", () => {
  const [prefix, suffix] = LAYOUTS[0]!;
  const shape = learnShape(HEAD, `${prefix}This ${suffix}`) as ChunkShape;
  assert.deepEqual(shape, { prefix: HEAD + prefix, suffix });
  const fits = (body: string) => fitsShape(shape, `${HEAD}${prefix}${body}${suffix}`);
  assert.equal(fits("harbour "), true);
  assert.equal(fits("Zürich 😀"), true);
  assert.equal(fits("is"), false, "a body of a–z only could spell a key");
  assert.equal(fits("error"), false);
  assert.equal(fits(""), false);
  assert.equal(fits('a","finish_reason":"stop'), false);
  assert.equal(fits("\\u0041"), false);
  assert.equal(fits("a\nb"), false);
  assert.equal(fitsShape(shape, `${HEAD}${prefix}This ${suffix} `), false);
  assert.equal(fitsShape(shape, `${HEAD.replace("gpt", "gpu")}${prefix}This ${suffix}`), false);
  // A reasoning delta teaches one too (a model that reasons first, then answers).
  assert.deepEqual(learnShape(HEAD, ',"choices":[{"index":0,"delta":{"reasoning":"Tides"}}]}'), {
    prefix: `${HEAD},"choices":[{"index":0,"delta":{"reasoning":"`,
    suffix: '"}}]}',
  });
  // No shape where the check could be fooled or there is no content string.
  assert.equal(learnShape(HEAD, ',"choices":[{"index":0,"delta":{"tool_calls":[]}}]}'), undefined);
  assert.equal(learnShape(HEAD, ',"choices":[{"delta":{"content":"a}'), undefined);
  assert.equal(learnShape(HEAD, ',"choices":[{"delta":{"content":"a","usage":{}}}]}'), undefined);
  assert.equal(
    learnShape(HEAD, ',"x":"\\u0041","choices":[{"delta":{"content":"a"}}]}'),
    undefined,
  );
  assert.equal(learnShape(HEAD, ',"choices":[{"delta":{"content":"a"}}]'), undefined);
});

/** What a whole chunk decodes to, as the ordinary decoder sees it (a throw: undefined). */
function decoded(data: string): ChatStreamEvent[] | undefined {
  try {
    const out: ChatStreamEvent[] = [];
    convertChunk(JSON.parse(data), out);
    return out;
  } catch {
    return undefined;
  }
}

Deno.test("a chunk that fits a shape with a delta decodes to that one delta, its body as text (generated and hostile chunks)", () => {
  let withDelta = 0;
  let fits = 0;
  let runs = 0;
  fc.assert(
    fc.property(
      learntWithCandidates,
      ([first, rests]) => {
        runs++;
        if (needsParse(first)) return;
        const shape = learnShape(HEAD, first);
        if (shape === undefined) return;
        const delta = shapeDelta(shape);
        if (delta === undefined) return;
        withDelta++;
        for (const rest of rests) {
          const data = HEAD + rest;
          if (!fitsShape(shape, data)) continue;
          fits++;
          const text = data.slice(shape.prefix.length, data.length - shape.suffix.length);
          assert.deepEqual(decoded(data), [{ type: delta, text }], JSON.stringify({ shape, rest }));
        }
      },
    ),
    { numRuns: 20_000 },
  );
  // Most inserted fragments leave no valid JSON (no delta); a good share still teaches one.
  assert.ok(withDelta > runs / 10, `${withDelta} shapes with a delta in ${runs} runs`);
  assert.ok(fits > runs / 10, `${fits} fitting chunks in ${runs} runs`);
});

Deno.test("shapeDelta — a content or reasoning delta of choice 0, nothing where the body is not the delta's text", () => {
  const delta = (rest: string) => {
    const shape = learnShape(HEAD, rest);
    return shape && shapeDelta(shape);
  };
  const [prefix, suffix] = LAYOUTS[0]!;
  assert.equal(delta(`${prefix}This ${suffix}`), "text-delta");
  assert.equal(delta(',"choices":[{"index":0,"delta":{"reasoning":"Tides"}}]}'), "reasoning-delta");
  // A later member of the same name wins in JSON: the body is not the text.
  assert.equal(delta(',"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}'), undefined);
  // Another choice's delta, a second event beside it, a string that is no delta at all.
  assert.equal(delta(',"choices":[{"index":1,"delta":{"content":"Tides"}}]}'), undefined);
  assert.equal(
    delta(',"choices":[{"index":0,"delta":{"content":"Tides","reasoning":"Hm"}}]}'),
    undefined,
  );
  assert.equal(delta(',"x":{"content":"Tides"},"choices":[]}'), undefined);
  // Not JSON once the body is put back (the shape without the head).
  const headless = learnShape("", `${prefix}This ${suffix}`);
  assert.ok(headless);
  assert.equal(shapeDelta(headless), undefined);
});

Deno.test("the decoder hands billing a shaped chunk's text, not its data; a raw control character is no shape", () => {
  const [prefix, suffix] = LAYOUTS[2]!;
  const decoder = openaiPassthroughDecoder();
  const role = `${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`;
  // Bodies: plain, plain, plain with non-ASCII, a JSON-escaped tab, a raw tab (not JSON).
  const bodies = ["The ", "harbour ", "of Marseille é 😀", "a\\tb", "raw\ttab"];
  const chunks = [role, ...bodies.map((body) => HEAD + prefix + body + suffix)];
  const sent = sse(chunks);
  const items: PassthroughItem[] = [...decoder.push(new TextEncoder().encode(sent))];
  const forwarded = items.filter((i) => i.type === "forwarded");
  // The first forwarded chunk teaches the shape; from then on the text comes with the chunk.
  assert.deepEqual(forwarded.map((i) => i.type === "forwarded" ? i.text : "not forwarded"), [
    undefined,
    "harbour ",
    "of Marseille é 😀",
    undefined,
    undefined,
  ]);
  for (const item of forwarded) {
    if (item.type === "forwarded" && item.text !== undefined) {
      assert.deepEqual(item.events(), [{ type: "text-delta", text: item.text }]);
    }
  }
});

/** The SSE text of chunks (a line feed in one splits it over `data:` lines). */
const sse = (chunks: readonly string[]) =>
  chunks.map((c) => c.split("\n").map((line) => `data: ${line}\n`).join("") + "\n").join("");

/**
 * What a data line can carry: SSE ends a line at a carriage return too, and UTF-8 has no lone
 * surrogate (a cut can split an emoji).
 */
const sendable = (text: string) => text.replaceAll("\r", "").toWellFormed();

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The rests forwarded without parsing, in order. */
function forwardedUnparsed(items: readonly PassthroughItem[]): string[] {
  return items.flatMap((item) => item.type === "forwarded" && !item.decoded ? [item.rest] : []);
}

Deno.test("the decoder forwards unparsed exactly the chunks needsParse lets through", () => {
  const encoder = new TextEncoder();
  const role =
    `${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`;
  let shaped = 0;
  fc.assert(
    fc.property(
      fc.tuple(learntArb, learntArb).chain(([first, second]) =>
        fc.tuple(
          fc.constant(first),
          fc.array(fc.oneof(candidateArb(first), candidateArb(second)), { maxLength: 12 }),
        )
      ).map(([first, rests]) => [sendable(first), rests.map(sendable)] as const),
      fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 6 }),
      ([first, rests], cuts) => {
        const chunks = [role, HEAD + first, ...rests.map((rest) => HEAD + rest)];
        // A chunk the check sends to the parse that is not JSON ends the stream there.
        const expected: string[] = [];
        for (const rest of [first, ...rests]) {
          if (!needsParse(rest)) expected.push(rest);
          else if (!isJson(HEAD + rest)) break;
        }
        if (!needsParse(first) && learnShape(HEAD, first) !== undefined) shaped++;
        const bytes = encoder.encode(sse(chunks) + "data: [DONE]\n\n");
        const decoder = openaiPassthroughDecoder();
        const items: PassthroughItem[] = [];
        let at = 0;
        try {
          for (const size of [...cuts, bytes.length]) {
            for (const item of decoder.push(bytes.subarray(at, at + size))) items.push(item);
            at = Math.min(bytes.length, at + size);
          }
          items.push(...decoder.end());
        } catch {
          // A malformed chunk: the items before it went out.
        }
        assert.deepEqual(forwardedUnparsed(items), expected);
      },
    ),
    { numRuns: 3_000 },
  );
  assert.ok(shaped > 3_000 / 4, `${shaped} streams learnt a shape`);
});
