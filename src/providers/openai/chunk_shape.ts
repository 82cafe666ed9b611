/**
 * The pass-through's learnt chunk shape: a prefilter that spares `needsParse`'s regular
 * expression (~0.2–0.3 µs per event) on the chunks that make up most of a stream. After the
 * head, an upstream's content chunks differ only in the text of one JSON string, the content
 * delta (or the reasoning delta, while a model reasons):
 * `<head>,"choices":[{"index":0,"delta":{"content":"` + text + `"},"finish_reason":null}]}`.
 * The shape is learnt from a chunk the check let through: its text up to the delta's opening
 * quote (the prefix, head included) and from the closing quote on (the suffix). A later chunk
 * *fits* when it is exactly prefix + body + suffix and the body holds no `"`, `\` or control
 * character (line feed included) and is not made of `a`–`z` and `_` only. Such a chunk needs no
 * regular expression.
 *
 * It is sound: whenever `fitsShape` says yes, `needsParse` of the chunk's rest says no (so the
 * chunk goes out exactly as the check would have sent it). With the rest = P + B + S (P the
 * prefix without the head), learning keeps only a P that ends with `:"` and in which
 * `needsParse`'s expression finds nothing, and an S that starts with `"`, ends with `}` and in
 * which it finds nothing. Then, by the expression's form (see `needs_parse.ts`):
 *
 * - the rest ends with `}`;
 * - every match starts with a line feed, a backslash or a `"`, so none starts in B;
 * - a match that starts in S reads S only: none, as in S alone;
 * - a match that starts in P and ends in P is one in P alone, since what follows a quoted key
 *   (whitespace, `:`, `null`, `[`) stops at P's last `"` at the latest, and a key's closing
 *   quote is never P's last character (a `:` stands before that one): none. `\u00[4-7]`
 *   contains neither `:` nor `"`, so it cannot cover P's end;
 * - a match that starts in P and ends past it is a quoted key whose opening quote is P's last
 *   character and whose closing quote is S's first (no `"` between): the key would be B, and a
 *   B made of `a`–`z` and `_` only does not fit.
 *
 * `tests/providers/openai/chunk_shape_test.ts` checks it on generated and adversarial chunks.
 */
import type { ChatStreamEvent } from "../../canonical/chat.ts";
import { ownText } from "../own_text.ts";
import { hasParseSign } from "./needs_parse.ts";
import { convertChunk, isObject } from "./convert_stream.ts";

/** A learnt shape: the chunk's text before the delta's body (head included), and after it. */
export interface ChunkShape {
  readonly prefix: string;
  readonly suffix: string;
}

/** The deltas learnt from: a key and the opening quote of its string value. */
const CONTENT = '"content":"';
const REASONING = '"reasoning":"';

/**
 * The shape of a chunk whose rest (after `head`) `needsParse` let through, around its
 * `"content"` string (else its `"reasoning"` string); undefined when it has neither or its parts
 * do not meet the conditions above (the proof holds whatever the key).
 * Both parts are their own copies: slices would keep the upstream read they came from.
 */
export function learnShape(head: string, rest: string): ChunkShape | undefined {
  let open = rest.indexOf(CONTENT);
  if (open !== -1) open += CONTENT.length - 1;
  else {
    open = rest.indexOf(REASONING);
    if (open === -1) return undefined;
    open += REASONING.length - 1;
  }
  const close = closingQuote(rest, open);
  if (close === -1) return undefined;
  const prefix = rest.slice(0, open + 1);
  const suffix = rest.slice(close);
  const sound = prefix.endsWith(':"') && suffix.startsWith('"') && suffix.endsWith("}") &&
    !hasParseSign(prefix) && !hasParseSign(suffix);
  return sound ? { prefix: ownText(head + prefix), suffix: ownText(suffix) } : undefined;
}

/**
 * True when `data` (a whole chunk, head included) is the shape's prefix, a body without `"`,
 * `\` or control character that is not made of `a`–`z` and `_` only, and the shape's suffix.
 * The compares are slices with `===` (native), as the decoder's head compare.
 */
export function fitsShape(shape: ChunkShape, data: string): boolean {
  const { prefix, suffix } = shape;
  const end = data.length - suffix.length;
  if (end < prefix.length) return false;
  if (data.slice(end) !== suffix || data.slice(0, prefix.length) !== prefix) return false;
  let word = true;
  for (let i = prefix.length; i < end; i++) {
    const c = data.charCodeAt(i);
    // A control character is not valid raw in a JSON string: such a chunk is no plain delta.
    if (c === 0x22 /* " */ || c === 0x5c /* \ */ || c < 0x20) return false;
    if (word && (c < 0x61 /* a */ || c > 0x7a /* z */) && c !== 0x5f /* _ */) word = false;
  }
  return !word;
}

/** A body that fits any shape: not empty, not `a`–`z` only, no quote, escape or control. */
const PROBE_BODY = "Zq 9";

/**
 * The one event every chunk that fits `shape` decodes to, when that is a content or reasoning
 * delta of choice 0 whose text is the chunk's body: then billing can keep the body as the
 * chunk's text without parsing it (`ForwardedChunk.text`). Undefined otherwise (the body is
 * some other string of the chunk, or the chunk decodes to more than that one event).
 *
 * Checked once per learnt shape, on the shape with a probe body: a fitting chunk's body holds no
 * `"`, `\` or control character, so its JSON is the probe's token for token except inside that
 * one string, whose value is the body as it is; the decoding reads that string's value only to
 * see that it is a non-empty string (a fitting body is never empty). So what the probe decodes
 * to, with the probe's text replaced by the body, is what every fitting chunk decodes to — a
 * duplicate key that overrides the body's member shows as the probe's text missing.
 */
export function shapeDelta(shape: ChunkShape): "text-delta" | "reasoning-delta" | undefined {
  let chunk: unknown;
  try {
    chunk = JSON.parse(shape.prefix + PROBE_BODY + shape.suffix);
  } catch {
    return undefined;
  }
  if (!isObject(chunk)) return undefined;
  const events: ChatStreamEvent[] = [];
  try {
    convertChunk(chunk, events);
  } catch {
    return undefined;
  }
  const only = events[0];
  if (events.length !== 1 || only === undefined) return undefined;
  if (only.type !== "text-delta" && only.type !== "reasoning-delta") return undefined;
  return only.text === PROBE_BODY && only.choice === undefined ? only.type : undefined;
}

/** The index of the `"` that closes the JSON string opening at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++; // a backslash escapes the next character
    else if (c === 0x22) return i;
  }
  return -1;
}
