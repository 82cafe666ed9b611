/**
 * An open chat stream → the chat-completions SSE body. Pull-based with a high-water mark of 0:
 * the upstream is read only when the client asks for bytes, and each upstream read becomes one
 * write. The upstream started without a token yet (an empty first batch): the role chunk goes
 * out at once, as the first byte. After the first byte a failure is a dropped connection (no
 * error body, spec rule 4); a client that leaves is billed as cancelled. `finish` is called
 * exactly once, however the stream ends.
 */
import type { PassthroughItem } from "../../canonical/forwarded_chunk.ts";
import { loggableReason } from "../../providers/upstream_failure.ts";
import type { ChatChunkEncoder } from "./chunk_encoder.ts";

/** What the body reads from: the pipeline's open stream. */
export interface ChatStreamSource {
  /** The next batch (one upstream read). */
  read(): Promise<ReadableStreamReadResult<readonly PassthroughItem[]>>;
  /** The client left: abort the upstream. */
  cancel(reason?: unknown): void;
  /** The stream ended; settles. Repeated calls are ignored. */
  finish(outcome: "completed" | "failed" | "cancelled"): void;
}

export interface ChatStreamBodyOptions {
  encoder: ChatChunkEncoder;
  /** Aborts when the client goes away. */
  clientSignal: AbortSignal;
  /** For the log line of a stream dropped after an upstream failure. */
  requestId: string;
  provider: string;
}

export function chatStreamBody(
  source: ChatStreamSource,
  options: ChatStreamBodyOptions,
): ReadableStream<Uint8Array> {
  const { encoder } = options;
  let clientLeft = false;
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let next: ReadableStreamReadResult<readonly PassthroughItem[]>;
        try {
          next = await source.read();
        } catch (error) {
          if (clientLeft || options.clientSignal.aborted) {
            // The client left: its disconnect aborted the upstream read. Billed as cancelled.
            source.finish("cancelled");
            controller.close();
            return;
          }
          // After the first byte a failure is a dropped connection: no error body. Deno prints
          // the reason a body stream errors with, verbatim, so it is our JSON log line.
          source.finish("failed");
          controller.error(JSON.stringify({
            time: new Date().toISOString(),
            level: "warn",
            msg: "stream dropped after an upstream failure",
            request_id: options.requestId,
            provider: options.provider,
            reason: loggableReason(error),
          }));
          return;
        }
        if (next.done) {
          controller.enqueue(encoder.end());
          controller.close();
          source.finish("completed");
          return;
        }
        // One upstream read → one write to the client. The upstream started without a
        // token yet (an empty first batch): the role chunk goes out now, as the first byte.
        const bytes = encoder.encodeBatch(next.value) ?? (first ? encoder.start() : undefined);
        first = false;
        if (bytes) {
          controller.enqueue(bytes);
          return;
        }
      }
    },
    cancel(reason) {
      clientLeft = true;
      source.cancel(reason);
      source.finish("cancelled");
    },
  }, { highWaterMark: 0 });
}
