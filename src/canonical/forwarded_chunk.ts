/**
 * The stream pass-through's unit: an upstream chat chunk that reaches the client as the
 * upstream sent it except for its head (`id`, `object`, `created`, `model`), which the client
 * encoder replaces with its own. Only a chat client on an `openai`-dialect route gets these
 * (see `providers/openai/passthrough_decoder.ts`); everything else is canonical events.
 */
import type { ChatStreamEvent } from "./chat.ts";

export interface ForwardedChunk {
  readonly type: "forwarded";
  /** The chunk's JSON text after the upstream's head: it starts with `,` and ends with `}`. */
  readonly rest: string;
  /**
   * The canonical events this chunk stands for. Chunks forwarded without parsing decode on
   * the first call (a billing estimate needs them only when the provider reported no usage
   * or the client left); chunks parsed on the way answer at once.
   */
  events(): readonly ChatStreamEvent[];
  /** True when `events()` is known without parsing (the chunk was parsed on the way). */
  readonly decoded: boolean;
  /**
   * The text the chunk generates, when that is known without parsing: a chunk of the stream's
   * learnt shape is one content (or reasoning) delta of choice 0 whose JSON string has no
   * escape, so its text is that string's body as it came (`chunk_shape.ts`). Billing keeps this
   * instead of the chunk, so an open stream holds its text, not its upstream events.
   */
  readonly text?: string;
  /**
   * A chunk taken from the upstream's bytes (the learnt shape with an ASCII body): `rest` and
   * the event's closing `\n\n` as bytes, and `text` as bytes. `rest` and `text` are then
   * decoded only when read. Views over the upstream's read buffer, valid until the stream's
   * next read: the client encoder and the accounting copy them in the pull that got them.
   */
  readonly bytes?: Uint8Array;
  readonly textBytes?: Uint8Array;
}

/** What a pass-through stream yields: forwarded chunks, or canonical events for the rest. */
export type PassthroughItem = ChatStreamEvent | ForwardedChunk;
