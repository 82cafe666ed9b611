/**
 * `eventBatches`: the caller's abort stops the upstream body by itself. Once `fetch` has
 * answered, Deno's link from the signal to the body goes with the unreachable Response at the
 * next garbage collection (a drain's cut then left a stream running, unsettled, past the
 * store's close: tests/ops/shutdown_test.ts under load). The bodies here are plain streams that
 * ignore the signal, as such a fetch body does.
 */
import assert from "node:assert/strict";
import { eventBatches, type StreamDecoder } from "../../src/providers/event_batches.ts";
import { UpstreamFailure } from "../../src/providers/upstream_failure.ts";

/** One event per chunk: the chunk's text. */
const textDecoder: StreamDecoder<string> = {
  push: (chunk) => [new TextDecoder().decode(chunk)],
  end: () => [],
};

/** A body that answers every read (a stream that would go on for ever) and records its cancel. */
function endlessBody() {
  const seen = { cancelled: false, reads: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.reads++;
      controller.enqueue(new TextEncoder().encode(`chunk ${seen.reads}`));
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { body, seen };
}

Deno.test("eventBatches — an abort between reads ends a body that ignores the signal", async () => {
  const { body, seen } = endlessBody();
  const upstream = new AbortController();
  const reader = eventBatches(body, upstream.signal, textDecoder);
  assert.deepEqual(await reader.read(), { done: false, value: ["chunk 1"] });
  const cut = new UpstreamFailure("unavailable", "The gateway is shutting down.");
  upstream.abort(cut);
  await assert.rejects(reader.read(), (error) => error === cut);
  assert.ok(seen.cancelled, "the upstream body is cancelled (its connection closed)");
  assert.equal(seen.reads, 1, "nothing more is read from the upstream after the abort");
});

Deno.test("eventBatches — an abort ends a read waiting on a silent body (an idle cut)", async () => {
  let cancelled = false;
  const silent = new ReadableStream<Uint8Array>({
    cancel() {
      cancelled = true;
    },
  });
  const upstream = new AbortController();
  const reader = eventBatches(silent, upstream.signal, textDecoder);
  const pending = reader.read();
  const idle = new UpstreamFailure("unavailable", "The provider went silent.");
  upstream.abort(idle);
  await assert.rejects(pending, (error) => error === idle);
  assert.ok(cancelled);
});

Deno.test("eventBatches — a signal aborted before the first read fails that read", async () => {
  const { body, seen } = endlessBody();
  const upstream = new AbortController();
  const gone = new UpstreamFailure("unavailable", "The client left.");
  upstream.abort(gone);
  const reader = eventBatches(body, upstream.signal, textDecoder);
  await assert.rejects(reader.read(), (error) => error === gone);
  assert.ok(seen.cancelled);
});

Deno.test("eventBatches — a body that ends normally closes the stream", async () => {
  const upstream = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("only"));
      controller.close();
    },
  });
  const reader = eventBatches(body, upstream.signal, textDecoder);
  assert.deepEqual(await reader.read(), { done: false, value: ["only"] });
  assert.equal((await reader.read()).done, true);
  // A late abort (the request's signal outlives its stream) changes nothing.
  upstream.abort();
});

Deno.test("eventBatches — once done (ended, failed or cancelled), reads keep their answer and cancel resolves", async () => {
  // Ended: the decoder's last batch goes out, then done for good; a late cancel is harmless.
  let ends = 0;
  const lastWords: StreamDecoder<string> = {
    push: (chunk) => [new TextDecoder().decode(chunk)],
    end: () => (++ends === 1 ? ["last"] : ["again"]),
  };
  const ended = eventBatches(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("only"));
        controller.close();
      },
    }),
    new AbortController().signal,
    lastWords,
  );
  assert.deepEqual(await ended.read(), { done: false, value: ["only"] });
  assert.deepEqual(await ended.read(), { done: false, value: ["last"] });
  assert.deepEqual(await ended.read(), { done: true });
  assert.deepEqual(await ended.read(), { done: true });
  await ended.cancel("late");
  assert.equal(ends, 1, "the decoder's end is asked once");

  // Failed: every later read fails with the same failure.
  let pulls = 0;
  const broken = eventBatches(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (++pulls === 1) controller.enqueue(new TextEncoder().encode("a"));
        else controller.error(new Error("connection reset"));
      },
    }, { highWaterMark: 0 }),
    new AbortController().signal,
    textDecoder,
  );
  assert.deepEqual(await broken.read(), { done: false, value: ["a"] });
  let failure: unknown;
  await assert.rejects(broken.read(), (error) => {
    failure = error;
    return error instanceof UpstreamFailure;
  });
  await assert.rejects(broken.read(), (error) => error === failure);
  await broken.cancel();

  // Cancelled: the body is cancelled once, reads are done, a second cancel resolves.
  const { body, seen } = endlessBody();
  const cancelled = eventBatches(body, new AbortController().signal, textDecoder);
  assert.deepEqual(await cancelled.read(), { done: false, value: ["chunk 1"] });
  await cancelled.cancel("client left");
  assert.ok(seen.cancelled);
  assert.deepEqual(await cancelled.read(), { done: true });
  await cancelled.cancel("again");
  assert.equal(seen.reads, 1);
});
