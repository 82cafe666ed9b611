/**
 * Canonical event stream → the Responses SSE byte stream. Pull-based with a high-water mark
 * of 0: one upstream event is read only when the client asks for bytes (no read-ahead), and
 * each pull encodes once. A failure after the first byte — the canonical stream errors, or
 * the caller calls `fail()` — closes open parts and items and ends with `response.failed`;
 * the byte stream itself never errors. A client cancel cancels the canonical stream.
 */
import type { ChatResult, ChatStreamEvent } from "../../canonical/chat.ts";
import type { ResponseContext } from "./response_object.ts";
import { ResponsesEventEncoder } from "./event_encoder.ts";

/** How the stream ended, with the answer so far (what billing settles). */
export interface ResponsesStreamOutcome {
  /** `completed`: response.completed sent; `failed`: response.failed sent; `cancelled`: the client left. */
  status: "completed" | "failed" | "cancelled";
  result: ChatResult;
  /** The failure (`failed`) or the cancel reason (`cancelled`); never sent to the client. */
  error?: unknown;
}

export interface ResponsesStreamOptions extends ResponseContext {
  /** Called exactly once, when the stream ends in any way. Must not throw. */
  onFinish?: (outcome: ResponsesStreamOutcome) => void;
}

export interface ResponsesEventStream {
  /** `text/event-stream` body. */
  body: ReadableStream<Uint8Array>;
  /** Ends the stream with `response.failed` (e.g. on an idle timeout); no-op once ended. */
  fail(error: unknown): void;
  /** The answer so far, e.g. to estimate usage while the stream is still open. */
  snapshot(): ChatResult;
}

export function createResponsesEventStream(
  events: ReadableStream<ChatStreamEvent>,
  options: ResponsesStreamOptions,
): ResponsesEventStream {
  const encoder = new ResponsesEventEncoder(options);
  const bytes = new TextEncoder();
  const reader = events.getReader();
  let started = false;
  let ended = false;
  let failure: { error: unknown } | undefined;
  /** Read through a call: `fail()` may set it while a pull awaits the upstream. */
  const requestedFailure = () => failure;

  const finish = (outcome: Omit<ResponsesStreamOutcome, "result">) => {
    ended = true;
    options.onFinish?.({ ...outcome, result: encoder.result() });
  };
  const failNow = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
    controller.enqueue(bytes.encode(encoder.fail(error)));
    controller.close();
    finish({ status: "failed", error });
  };

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(bytes.encode(encoder.start()));
        return;
      }
      for (;;) {
        const before = requestedFailure();
        if (before !== undefined) return failNow(controller, before.error);
        let next: ReadableStreamReadResult<ChatStreamEvent>;
        try {
          next = await reader.read();
        } catch (error) {
          if (ended) return;
          return failNow(controller, requestedFailure()?.error ?? error);
        }
        if (ended) return; // the client cancelled while the read was pending
        const during = requestedFailure();
        if (during !== undefined) return failNow(controller, during.error);
        if (next.done) {
          const text = encoder.complete();
          controller.enqueue(bytes.encode(text));
          controller.close();
          const status = encoder.result().finishReason === "error" ? "failed" : "completed";
          return finish({ status });
        }
        let text: string;
        try {
          text = encoder.push(next.value);
        } catch (error) {
          // A gateway bug must not drop the connection either; stop the upstream as well.
          reader.cancel(error).catch(() => {});
          return failNow(controller, error);
        }
        if (text !== "") {
          controller.enqueue(bytes.encode(text));
          return;
        }
      }
    },
    async cancel(reason) {
      if (ended) return;
      finish({ status: "cancelled", error: reason });
      await reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });

  return {
    body,
    fail(error) {
      if (ended || failure !== undefined) return;
      failure = { error };
      // Ends a pending read; the pull that was waiting on it then sends response.failed.
      reader.cancel(error).catch(() => {});
    },
    snapshot: () => encoder.result(),
  };
}
