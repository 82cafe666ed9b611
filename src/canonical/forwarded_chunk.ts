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
}

/** What a pass-through stream yields: forwarded chunks, or canonical events for the rest. */
export type PassthroughItem = ChatStreamEvent | ForwardedChunk;
