/** `ownText`: the same text, whatever its length or characters. */
import assert from "node:assert/strict";
import { ownText } from "../../src/providers/own_text.ts";

Deno.test("ownText — gives back exactly the text it was given", () => {
  const read =
    `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m"}\n\n`;
  for (
    const text of [
      "",
      "a",
      "twelve chars",
      read.slice(6, 70),
      read,
      "é€😀 mixed ünïcödé text that is long enough to be sliced",
      "x".repeat(100_000),
    ]
  ) {
    assert.equal(ownText(text), text);
  }
});
