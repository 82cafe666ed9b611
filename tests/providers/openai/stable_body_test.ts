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
  // Keys mostly plain (the sliced path), sometimes with quotes or backslashes, which JSON writes
  // escaped (such a text is serialised afresh).
  object: fc.dictionary(
    fc.oneof({ weight: 9, arbitrary: fc.stringMatching(/^[a-z{}[\],: ]{0,8}$/) }, {
      weight: 1,
      arbitrary: tricky,
    }),
    tie("value"),
    { maxKeys: 4 },
  ),
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
          else built[key] = `replaced ${i}`;
        }
        Object.assign(built, added);
        const sent = stableBody(built, client);
        assert.deepEqual(JSON.parse(sent), JSON.parse(JSON.stringify(built)));
        const top = topLevelMembers(text);
        if (top === undefined) {
          assert.equal(sent, JSON.stringify(built), "an escaped key: serialised afresh");
          return;
        }
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

Deno.test("stableBody — any client text, edits below the top level too: the text sent parses to the body", () => {
  fc.assert(
    fc.property(body, whitespace, json, fc.nat(), (value, spaces, replacement, pick) => {
      let next = 0;
      const text = spaced(value, () => spaces[next++ % spaces.length]!);
      const client = { text, value: JSON.parse(text) };
      const built: Record<string, unknown> = structuredClone(client.value);
      const keys = Object.keys(built);
      const key = keys[pick % keys.length]!;
      // An object in place of an object: the edits are made inside it.
      built[key] = typeof built[key] === "object" && built[key] !== null
        ? { ...(built[key] as object), replaced: replacement }
        : replacement;
      const sent = stableBody(built, client);
      assert.deepEqual(JSON.parse(sent), JSON.parse(JSON.stringify(built)));
    }),
    { numRuns: 300 },
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

Deno.test("topLevelMembers — a key written with an escape or twice, at any depth, is not sliced (parsers read it differently)", () => {
  assert.equal(topLevelMembers(String.raw`{"model":"a","mod\u0065l":"b"}`), undefined);
  assert.equal(topLevelMembers(`{"model":"a","x":1,"model":"b"}`), undefined);
  assert.equal(
    topLevelMembers(`{"messages":[{"role":"user","content":"bad","content":"benign"}]}`),
    undefined,
  );
  assert.equal(topLevelMembers(String.raw`{"m":[{"r\u006fle":"user"}]}`), undefined);
  assert.ok(topLevelMembers(`{"m":[{"role":"user"},{"role":"user"}],"n":{"role":"x"}}`));
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

Deno.test("stableBody — many edits below the top level are not made one parse each: the body is serialised afresh", () => {
  // Each message whose content parts the adapter joins to a string is one edit inside `messages`.
  const messages = Array.from({ length: 200 }, () => ({
    role: "user",
    content: [{ type: "text", text: "hi" }],
  }));
  const text = JSON.stringify({ model: "acme/chat", messages }, null, 1);
  const built = {
    model: "sim-chat",
    messages: messages.map(() => ({ role: "user", content: "hi" })),
  };
  assert.equal(stableBody(built, { text, value: JSON.parse(text) }), JSON.stringify(built));
  // A few such edits on a small body keep the client's bytes around them.
  const few =
    `{ "model": "acme/chat", "messages": [ {"role":"user","content":[{"type":"text","text":"hi"}]} ] }`;
  const sent = stableBody(
    { model: "sim-chat", messages: [{ role: "user", content: "hi" }] },
    { text: few, value: JSON.parse(few) },
  );
  assert.ok(
    sent.startsWith(`{ "model": "sim-chat", "messages": [ {"role":"user","content":`),
    sent,
  );
});
