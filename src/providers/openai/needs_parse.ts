/**
 * The stream pass-through's per-event check (see `passthrough_decoder.ts`): may the rest of a
 * chunk (after the learnt head) carry something the client encoder would send differently?
 */

/**
 * Whitespace as the decoder's `skipSpace` skips it, then a member's value. A key in
 * `NEEDS_PARSE` followed by anything else is not a member.
 */
const WS = "[ \\t\\n\\r]*";

/**
 * Every sign `needsParse` looks for, in one pass of the regular-expression engine (compiled to
 * native code) instead of one `includes`/`indexOf` search per sign (V8 sets each search up anew:
 * ~2–3 µs per event for the eight of them, more than parsing the chunk). In order: a raw line
 * feed (multi-line data); `\u00XX` spelling a character from `@` to DEL (a key could hide in it);
 * the keys `"error"`, `"model"`, `"reasoning_content"`, `"reasoning_details"` anywhere; a
 * `"usage"` or `"finish_reason"` that is not a member whose value is `null`; a `"content"`
 * member whose value is an array (content parts).
 *
 * `chunk_shape.ts` proves its skip against this expression's form: every alternative starts
 * with a line feed, a backslash or a `"`; a quoted key is made of `a`–`z` and `_` only; what
 * follows a key (the look-ahead, the member's colon) never reads past a `"`; and there is no
 * anchor, look-behind or word boundary. Keep that true when adding a sign.
 */
const NEEDS_PARSE = new RegExp(
  [
    "\\n",
    "\\\\u00[4-7]",
    '"(?:error|model|reasoning_content|reasoning_details)"',
    `"(?:usage|finish_reason)"(?!${WS}:${WS}null)`,
    `"content"${WS}:${WS}\\[`,
  ].join("|"),
);

/**
 * True when the rest of a chunk may carry something the client encoder would send
 * differently, so the chunk must be parsed: see `passthrough_decoder.ts`'s module comment.
 * A JSON string cannot hold an unescaped `"`, so a quoted key found here is a key (or a
 * string value that happens to spell one: then the chunk is parsed for nothing).
 */
export function needsParse(rest: string): boolean {
  return rest.charCodeAt(rest.length - 1) !== 0x7d /* } */ || NEEDS_PARSE.test(rest);
}

/** True when some sign of `NEEDS_PARSE` is in `text` (the closing `}` aside). */
export function hasParseSign(text: string): boolean {
  return NEEDS_PARSE.test(text);
}
