/**
 * The tool-call ids a streamed answer makes, for the router's tool-loop pins, read from what
 * the stream yields: canonical events, or (stream pass-through) upstream chunks forwarded
 * without parsing. Only a forwarded chunk whose text names `"tool_calls"` is decoded for them
 * (`ForwardedChunk.events()` keeps the decoding, so billing does not repeat it); any other
 * forwarded chunk cannot carry a call: a key spelled with escapes makes the pass-through
 * parse the chunk on its way (`needsParse`), and a parsed chunk has its events already.
 */
import type { PassthroughItem } from "../canonical/forwarded_chunk.ts";

/** Appends to `ids` the tool-call ids `item` carries. */
export function collectToolCallIds(item: PassthroughItem, ids: string[]): void {
  if (item.type !== "forwarded") {
    if (item.type === "tool-call-delta" && item.id) ids.push(item.id);
    return;
  }
  if (!item.decoded && !item.rest.includes('"tool_calls"')) return;
  for (const event of item.events()) {
    if (event.type === "tool-call-delta" && event.id) ids.push(event.id);
  }
}
