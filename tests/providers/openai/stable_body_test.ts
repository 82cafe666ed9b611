/**
 * The byte-stable body (`stable_body.ts`, `top_level_members.ts`): for any JSON object text the
 * client could send and any body the adapter builds from it, the text sent parses to exactly that
 * body; top-level edits leave every member not edited byte for byte as the client wrote it.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { stableBody } from "../../../src/providers/openai/stable_body.ts";
import { editTopLevel, topLevelMembers } from "../../../src/providers/openai/top_level_members.ts";

/** JSON text of `value` with arbitrary JSON whitespace between tokens (as clients write it). */
function spaced(value: unknown, ws: () => string): string {
  if (Array.isArray(value)) {
    return "[" + ws() + value.map((v) => spaced(v, ws)).join(ws() + "," + ws()) + ws() + "]";
  }
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value).map(([k, v]) =>
      JSON.stringify(k) + ws() + ":" + ws() + spaced(v, ws)
    );
    return "{" + ws() + members.join(ws() + "," + ws()) + ws() + "}";
  }
  return JSON.stringify(value);
}

const whitespace = fc.array(fc.constantFrom("", " ", "\n", "\t", "\r\n  "), {
  minLength: 64,
  maxLength: 64,
});
/** Strings that stress a scanner: quotes, backslashes, brackets and escapes. */
const tricky = fc.stringMatching(/^[a-z"\\{}[\],:\u00e9 ]{0,12}$/);
const leaf = fc.oneof(
  tricky,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(tricky, tie("value"), { maxKeys: 4 }),
})).value;
const body = fc.dictionary(fc.stringMatching(/^[a-z_]{1,6}$/), json, { minKeys: 1, maxKeys: 6 });

Deno.test("stableBody — any client text, any top-level edits: the text sent parses to the body, untouched members keep their bytes", () => {
  fc.assert(
    fc.property(
      body,
      whitespace,
      fc.array(fc.tuple(fc.nat(), fc.constantFrom("replace", "remove")), { maxLength: 3 }),
      fc.dictionary(fc.stringMatching(/^[A-Z]{1,4}$/), json, { maxKeys: 2 }),
      (value, spaces, changes, added) => {
        let next = 0;
        const text = spaced(value, () => spaces[next++ % spaces.length]!);
        const client = { text, value: JSON.parse(text) };
        const built: Record<string, unknown> = structuredClone(client.value);
        const keys = Object.keys(built);
        for (const [i, change] of changes) {
          const key = keys[i % keys.length]!;
          if (change === "remove") delete built[key];
          else built[key] = { replaced: i };
        }
        Object.assign(built, added);
        const sent = stableBody(built, client);
        assert.deepEqual(JSON.parse(sent), JSON.parse(JSON.stringify(built)));
        const top = topLevelMembers(text)!;
        for (const m of top.members) {
          if (JSON.stringify(built[m.key]) === JSON.stringify(client.value[m.key])) {
            assert.ok(sent.includes(text.slice(m.start, m.valueEnd)), `member ${m.key} kept`);
          }
        }
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("topLevelMembers — strings with quotes, backslashes and brackets are skipped whole", () => {
  const text = String
    .raw` { "a" : "x\"}\\" , "b":[ "]", {"c":"\\\\"} , 1e3 ], "c" :-0.5e-2,"d":{"e":[[]]} , "f":null}`;
  const top = topLevelMembers(text)!;
  const slices = top.members.map((m) => [m.key, text.slice(m.valueStart, m.valueEnd)]);
  assert.deepEqual(slices, [
    ["a", String.raw`"x\"}\\"`],
    ["b", String.raw`[ "]", {"c":"\\\\"} , 1e3 ]`],
    ["c", "-0.5e-2"],
    ["d", `{"e":[[]]}`],
    ["f", "null"],
  ]);
  assert.equal(text[top.close], "}");
});

Deno.test("topLevelMembers — a key written with an escape or twice is not sliced (JSON.parse would read it otherwise)", () => {
  assert.equal(topLevelMembers(String.raw`{"model":"a","mod\u0065l":"b"}`), undefined);
  assert.equal(topLevelMembers(`{"model":"a","x":1,"model":"b"}`), undefined);
  // stableBody still sends exactly the body built from what JSON.parse read.
  for (const text of [String.raw`{"model":"a","mod\u0065l":"b"}`, `{"model":"a","model":"b"}`]) {
    const value = JSON.parse(text);
    const built = { ...value, model: "upstream-id" };
    assert.deepEqual(JSON.parse(stableBody(built, { text, value })), built);
  }
});

Deno.test("editTopLevel — removing the first, the last or every member leaves valid JSON with the rest as written", () => {
  const text = `{\n  "a": 1,\n  "b" : [2],\n  "c":3\n}`;
  const top = topLevelMembers(text)!;
  assert.equal(editTopLevel(text, top, new Map([["a", undefined]])), `{\n  "b" : [2],\n  "c":3\n}`);
  assert.equal(
    editTopLevel(text, top, new Map([["c", undefined]])),
    `{\n  "a": 1,\n  "b" : [2]\n}`,
  );
  assert.equal(
    editTopLevel(
      text,
      top,
      new Map<string, unknown>([["a", undefined], ["b", undefined], ["c", undefined], ["d", true]]),
    ),
    `{\n  "d":true\n}`,
  );
  assert.equal(
    editTopLevel(text, top, new Map([["b", "x"]])),
    `{\n  "a": 1,\n  "b" : "x",\n  "c":3\n}`,
  );
  assert.equal(editTopLevel("{ }", topLevelMembers("{ }")!, new Map([["k", 1]])), `{ "k":1}`);
});
