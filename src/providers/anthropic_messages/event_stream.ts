/**
 * An upstream body turned into a pull-based stream of canonical events: the upstream is read
 * only when the consumer pulls; cancelling the stream cancels the upstream body. Any failure
 * becomes an UpstreamFailure (an abort by the caller's signal keeps its own reason).
 */
import type { ChatStreamEvent } from "../../canonical/chat.ts";
import { UpstreamFailure } from "../upstream_failure.ts";

export interface StreamDecoder {
  /** Events completed by this chunk of bytes (lazily, so events before a failure still go out). */
  push(chunk: Uint8Array): Iterable<ChatStreamEvent>;
  /** The body ended: last events, or a throw when the answer is incomplete. */
  end(): Iterable<ChatStreamEvent>;
}

export function eventStream(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  decoder: StreamDecoder,
): ReadableStream<ChatStreamEvent> {
  async function* run(): AsyncGenerator<ChatStreamEvent> {
    const reader = body.getReader();
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        yield* decoder.push(value);
      }
      yield* decoder.end();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof UpstreamFailure) throw error;
      throw new UpstreamFailure("unavailable", "The provider's stream broke.", { cause: error });
    } finally {
      reader.cancel().catch(() => {});
    }
  }
  return ReadableStream.from(run());
}
