/** Anthropic SSE bytes → canonical events, via eventsource-parser and the shared converter. */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { ChatStreamEvent } from "../../canonical/chat.ts";
import { AnthropicStreamConverter } from "../anthropic_messages/convert_stream.ts";
import type { StreamDecoder } from "../event_batches.ts";
import { AnthropicStreamEvent } from "../anthropic_messages/wire.ts";
import { StreamText } from "../../util/stream_text.ts";

export function anthropicSseDecoder(): StreamDecoder {
  const converter = new AnthropicStreamConverter();
  const text = new StreamText();
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  function* drain(): Generator<ChatStreamEvent> {
    for (const message of messages.splice(0)) {
      if (message.data === "") continue;
      yield* converter.push(AnthropicStreamEvent.parse(JSON.parse(message.data)));
    }
  }
  return {
    *push(chunk: Uint8Array): Generator<ChatStreamEvent> {
      parser.feed(text.decode(chunk));
      yield* drain();
    },
    *end(): Generator<ChatStreamEvent> {
      parser.feed(text.end());
      yield* drain();
      converter.end();
    },
  };
}
