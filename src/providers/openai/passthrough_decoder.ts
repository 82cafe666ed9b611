/**
 * The stream pass-through: `openai`-dialect SSE for a chat client that speaks the same dialect
 * and needs nothing changed but the chunk's head (see `docs/performance.md`, "Stream
 * pass-through"). Every chunk of one completion starts with the same head,
 * `{"id":…,"object":"chat.completion.chunk","created":…,"model":…`; the client encoder swaps
 * it for its own and forwards the rest of the chunk's text as it came.
 *
 * - The first chunk is parsed in full and goes out re-encoded (so the client's first chunk,
 *   which announces the role, is the ordinary one). The head is learnt from it: the exact text
 *   up to the end of the top-level `model` member, checked by parsing it back. Only when that
 *   head has exactly those four members does the pass-through start; otherwise the whole stream
 *   decodes to canonical events, as the ordinary decoder does.
 * - A later chunk that starts with that head and whose rest shows none of the signs below is
 *   forwarded without parsing (decoded only if billing needs its text: `ForwardedChunk`). The
 *   signs are one regular expression (`needs_parse.ts`); a chunk that fits the stream's learnt
 *   shape (`chunk_shape.ts`: same text around a plain content delta) is known to show none and
 *   skips it.
 * - Any other chunk is parsed: usage (merged and sent last, as the ordinary path does), an
 *   error, a finish reason, reasoning fields, content parts, a second `model`, multi-line data,
 *   escaped letters (which could spell a key) or any chunk not of the learnt head. A parsed
 *   chunk is still forwarded when its text means exactly what the ordinary encoder would send
 *   (`forwardable`); otherwise its canonical events go to the ordinary encoder.
 */
import type { ChatStreamEvent } from "../../canonical/chat.ts";
import type { ForwardedChunk, PassthroughItem } from "../../canonical/forwarded_chunk.ts";
import { validReasoningDetails } from "../../canonical/reasoning_detail_schema.ts";
import type { StreamDecoder } from "../event_batches.ts";
import { convertChunk, isObject, openaiSseEvents, parseChunk } from "./convert_stream.ts";
import { mapOpenAIFinishReason } from "./map_finish_reason.ts";
import { ownSlice, ownText } from "../own_text.ts";
import { type ChunkShape, fitsShape, learnShape, shapeDelta } from "./chunk_shape.ts";
import { needsParse } from "./needs_parse.ts";

const CHUNK_OBJECT = "chat.completion.chunk";
const HEAD_KEYS = ["id", "object", "created", "model"];
/**
 * Forwarded chunks a stream may learn a shape from: the first, and those that do not fit the
 * shape learnt (a new phase of the answer; tool-call streams have no shape).
 */
const LEARN_TRIES = 3;

/** An upstream chunk on its way to the client. */
class UpstreamChunk implements ForwardedChunk {
  readonly type = "forwarded";
  #events: readonly ChatStreamEvent[] | undefined;

  constructor(
    private readonly data: string,
    readonly rest: string,
    events?: readonly ChatStreamEvent[],
  ) {
    this.#events = events;
  }

  get decoded(): boolean {
    return this.#events !== undefined;
  }

  events(): readonly ChatStreamEvent[] {
    if (this.#events === undefined) {
      const out: ChatStreamEvent[] = [];
      try {
        const chunk = JSON.parse(this.data);
        if (isObject(chunk)) convertChunk(chunk, out);
      } catch {
        // Forwarded unparsed and not JSON after all: it generated nothing countable.
      }
      this.#events = out;
    }
    return this.#events;
  }
}

/**
 * A chunk of the stream's learnt shape whose body is its one delta's text (`shapeDelta`): it
 * carries that text (its own copy) and the rest for the encoder, not the chunk's whole data, so
 * what billing keeps of it for the stream's life is the text alone.
 */
class ShapedChunk implements ForwardedChunk {
  readonly type = "forwarded";
  readonly decoded = false;

  constructor(
    readonly rest: string,
    readonly text: string,
    private readonly kind: "text-delta" | "reasoning-delta",
  ) {}

  events(): readonly ChatStreamEvent[] {
    return [{ type: this.kind, text: this.text }];
  }
}

/** The pass-through decoder of one `openai`-dialect stream. */
export function openaiPassthroughDecoder(): StreamDecoder<PassthroughItem> {
  /**
   * The learnt head; undefined before the first chunk and when the pass-through is off. Its own
   * copy: a slice would keep the stream's first upstream read for the stream's whole life.
   */
  let head: string | undefined;
  let headLength = 0;
  let first = true;
  /** The learnt chunk shape (`chunk_shape.ts`), the last one a forwarded chunk taught. */
  let shape: ChunkShape | undefined;
  /** The delta every chunk of `shape` is, when its body is that delta's text. */
  let delta: "text-delta" | "reasoning-delta" | undefined;
  let learnTries = LEARN_TRIES;
  return openaiSseEvents<PassthroughItem>((data, out) => {
    if (shape !== undefined && fitsShape(shape, data)) {
      // The shape's prefix starts with the head, and a fitting chunk passes `needsParse`.
      const rest = data.slice(headLength);
      out.push(
        delta === undefined ? new UpstreamChunk(data, rest) : new ShapedChunk(
          rest,
          ownSlice(data, shape.prefix.length, data.length - shape.suffix.length),
          delta,
        ),
      );
      return;
    }
    if (head !== undefined && startsWithText(data, head)) {
      const rest = data.slice(head.length);
      if (!needsParse(rest)) {
        // A chunk of a new shape (content after reasoning) teaches it, while tries last.
        if (learnTries > 0) {
          learnTries--;
          const learnt = learnShape(head, rest);
          if (learnt !== undefined) {
            shape = learnt;
            delta = shapeDelta(learnt);
          }
        }
        out.push(new UpstreamChunk(data, rest));
        return;
      }
      const chunk = parseChunk(data);
      const events = decode(chunk);
      if (isObject(chunk) && forwardable(chunk, rest)) {
        out.push(new UpstreamChunk(data, rest, events));
      } else out.push(...events);
      return;
    }
    const chunk = parseChunk(data);
    if (first && isObject(chunk)) {
      first = false;
      const learnt = learnHead(data);
      head = learnt === undefined ? undefined : ownText(learnt);
      headLength = head?.length ?? 0;
    }
    out.push(...decode(chunk));
  });
}

function decode(chunk: unknown): ChatStreamEvent[] {
  const events: ChatStreamEvent[] = [];
  if (isObject(chunk)) convertChunk(chunk, events);
  return events;
}

/**
 * The text of `data` up to the end of its top-level `model` member, when that prefix is exactly
 * `{"id":<string>,"object":"chat.completion.chunk","created":<number>,"model":<string>` (any
 * spacing); undefined otherwise.
 */
export function learnHead(data: string): string | undefined {
  const key = data.indexOf('"model"');
  if (key === -1) return undefined;
  let i = skipSpace(data, key + 7);
  if (data[i] !== ":") return undefined;
  i = skipSpace(data, i + 1);
  if (data[i] !== '"') return undefined;
  const end = stringEnd(data, i);
  if (end === -1) return undefined;
  const head = data.slice(0, end);
  let parsed: unknown;
  try {
    parsed = JSON.parse(`${head}}`);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  const keys = Object.keys(parsed);
  const sameKeys = keys.length === HEAD_KEYS.length && keys.every((k, n) => k === HEAD_KEYS[n]);
  return sameKeys && typeof parsed.id === "string" && parsed.object === CHUNK_OBJECT &&
      typeof parsed.created === "number" && typeof parsed.model === "string"
    ? head
    : undefined;
}

/** The index after the JSON string that opens at `open` (a `"`), or -1. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++; // a backslash escapes the next character
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/**
 * `text.startsWith(prefix)`, as V8 runs it fastest: a slice compared with `===` is a native
 * comparison, while `startsWith` walks the characters in JavaScript-level builtins (~10× slower
 * for a 100-character head; this runs once per forwarded event).
 */
function startsWithText(text: string, prefix: string): boolean {
  return text.length >= prefix.length && text.slice(0, prefix.length) === prefix;
}

/** True when `\u00XX` spells a character from `@` to DEL (letters, `_`): a key could hide in it. */
function escapesLetter(text: string): boolean {
  for (let i = text.indexOf("\\u00"); i !== -1; i = text.indexOf("\\u00", i + 4)) {
    const c = text.charCodeAt(i + 4);
    if (c >= 0x34 /* 4 */ && c <= 0x37 /* 7 */) return true;
  }
  return false;
}

/**
 * True when forwarding this parsed chunk (with the client's head) tells the client exactly what
 * the ordinary encoder's chunks for it would: no usage (it is merged and sent last), no error,
 * no second `model`, reasoning under `reasoning` only, content as a string, only valid
 * reasoning details, a finish reason the gateway keeps as it is, single-line data without
 * escaped letters, and only choice 0.
 */
export function forwardable(chunk: Record<string, unknown>, rest: string): boolean {
  if (rest.includes("\n") || escapesLetter(rest) || rest.includes('"model"')) return false;
  if (rest.includes('"error"') || (chunk.usage !== undefined && chunk.usage !== null)) return false;
  const choices = chunk.choices;
  if (choices === undefined || choices === null) return true;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) {
    if (!isObject(choice) || (choice.index !== undefined && choice.index !== 0)) return false;
    const finish = choice.finish_reason;
    if (finish !== undefined && finish !== null) {
      if (typeof finish !== "string" || mapOpenAIFinishReason(finish).unified !== finish) {
        return false;
      }
    }
    const delta = choice.delta;
    if (delta === undefined || delta === null) continue;
    if (!isObject(delta) || delta.reasoning_content !== undefined) return false;
    const { content, reasoning, reasoning_details: details, tool_calls: calls } = delta;
    if (content !== undefined && content !== null && typeof content !== "string") return false;
    if (reasoning !== undefined && reasoning !== null && typeof reasoning !== "string") {
      return false;
    }
    if (calls !== undefined && calls !== null && !Array.isArray(calls)) return false;
    if (details !== undefined && details !== null) {
      if (!Array.isArray(details) || validReasoningDetails(details).length !== details.length) {
        return false;
      }
    }
  }
  return true;
}
