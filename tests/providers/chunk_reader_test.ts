/**
 * The upstream body reader of `eventBatches` (src/providers/event_batches.ts): an open stream
 * waiting for its next event holds the small buffer; a read that fills it moves to the large
 * one and a run of small reads moves back; every byte arrives intact across the changes (a
 * byte stream like a fetch body, read BYOB).
 */
import assert from "node:assert/strict";
import {
  chunkReader,
  LARGE_BUFFER_BYTES,
  SMALL_BUFFER_BYTES,
} from "../../src/providers/event_batches.ts";

/** A byte stream that answers each read with the next of `sizes` bytes (a counter pattern). */
function byteBody(sizes: number[]) {
  let next = 0;
  let counter = 0;
  const body = new ReadableStream({
    type: "bytes",
    pull(controller) {
      const size = sizes[next++];
      if (size === undefined) {
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      const view = controller.byobRequest!.view! as Uint8Array;
      const n = Math.min(size, view.byteLength);
      for (let i = 0; i < n; i++) view[i] = counter++ % 256;
      controller.byobRequest!.respond(n);
    },
  });
  return { body, delivered: () => counter };
}

Deno.test("chunk reader — small buffer while reads are small, large after a full read, small after 8 small reads; bytes intact", async () => {
  const sizes = [100, 5_000, 5_000, 3_000, ...Array(8).fill(300), 50];
  const upstream = byteBody(sizes);
  const reader = chunkReader(upstream.body) as ReturnType<typeof chunkReader> & {
    size: number;
  };
  const seen: number[] = [];
  const got: number[] = [];
  for (;;) {
    seen.push(reader.size);
    const chunk = await reader.read();
    if (chunk === undefined) break;
    got.push(...chunk);
  }
  // 5,000 bytes against the 2 KiB buffer: one full read moves to 8 KiB for the rest.
  assert.equal(seen[0], SMALL_BUFFER_BYTES, "an open stream waits on the small buffer");
  assert.ok(seen.includes(LARGE_BUFFER_BYTES), `moved to the large buffer: ${seen}`);
  assert.equal(seen.at(-1), SMALL_BUFFER_BYTES, `back to the small one: ${seen}`);
  assert.equal(got.length, upstream.delivered());
  assert.ok(got.length > LARGE_BUFFER_BYTES);
  assert.ok(got.every((byte, i) => byte === i % 256), "every byte in order");
});
