import assert from "node:assert/strict";
import { EventStreamDecoder } from "../../../src/providers/bedrock/eventstream_decoder.ts";
import { eventFrame, exceptionFrame } from "../../../scripts/simulator/bedrock/mod.ts";

// messageStart frame from reference/upstreams.md §4.6 (verified against smithy's vectors).
const VECTOR =
  "000000760000005296d5fade0b3a6576656e742d7479706507000c6d65737361676553746172740d3a636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e0d3a6d6573736167652d747970650700056576656e747b22726f6c65223a22617373697374616e74227d6fa8c599";

function hex(text: string): Uint8Array {
  return new Uint8Array(text.match(/../g)?.map((b) => parseInt(b, 16)) ?? []);
}

Deno.test("EventStreamDecoder — decodes the reference messageStart frame", () => {
  const frames = new EventStreamDecoder().push(hex(VECTOR));
  assert.equal(frames.length, 1);
  assert.equal(frames[0]?.messageType, "event");
  assert.equal(frames[0]?.name, "messageStart");
  assert.equal(new TextDecoder().decode(frames[0]?.payload), '{"role":"assistant"}');
});

Deno.test("EventStreamDecoder — frames split across reads, byte by byte and glued", () => {
  const a = eventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" } });
  const b = eventFrame("messageStop", { stopReason: "end_turn" });
  const all = new Uint8Array([...a, ...b]);
  const decoder = new EventStreamDecoder();
  const names: string[] = [];
  for (const byte of all) for (const f of decoder.push(new Uint8Array([byte]))) names.push(f.name);
  assert.deepEqual(names, ["contentBlockDelta", "messageStop"]);
  decoder.end();
  const glued = new EventStreamDecoder().push(all.subarray(0, a.length + 5));
  assert.deepEqual(glued.map((f) => f.name), ["contentBlockDelta"]);
});

Deno.test("EventStreamDecoder — a bad message CRC throws", () => {
  const frame = eventFrame("messageStop", { stopReason: "end_turn" });
  frame[frame.length - 1] = (frame[frame.length - 1] ?? 0) ^ 0xff;
  assert.throws(() => new EventStreamDecoder().push(frame), /checksum/);
});

Deno.test("EventStreamDecoder — a bad prelude CRC throws", () => {
  const frame = eventFrame("messageStop", { stopReason: "end_turn" });
  frame[9] = (frame[9] ?? 0) ^ 0xff;
  assert.throws(() => new EventStreamDecoder().push(frame), /checksum/);
});

Deno.test("EventStreamDecoder — a corrupted payload byte fails the message CRC", () => {
  const frame = eventFrame("messageStop", { stopReason: "end_turn" });
  frame[frame.length - 8] = 0x20;
  assert.throws(() => new EventStreamDecoder().push(frame), /checksum/);
});

Deno.test("EventStreamDecoder — exception frames carry the exception type", () => {
  const [frame] = new EventStreamDecoder().push(
    exceptionFrame("throttlingException", { message: "slow down" }),
  );
  assert.equal(frame?.messageType, "exception");
  assert.equal(frame?.name, "throttlingException");
});

Deno.test("EventStreamDecoder — ending inside a frame throws", () => {
  const decoder = new EventStreamDecoder();
  decoder.push(eventFrame("messageStop", {}).subarray(0, 10));
  assert.throws(() => decoder.end(), /inside a frame/);
});

Deno.test("EventStreamDecoder — a partial frame survives the reader reusing its buffer", () => {
  const frames = [
    eventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hello" } }),
    eventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: " world" } }),
  ];
  const all = new Uint8Array(frames[0]!.length + frames[1]!.length);
  all.set(frames[0]!, 0);
  all.set(frames[1]!, frames[0]!.length);
  // One buffer, overwritten by every "read" (as a BYOB reader does), 7 bytes at a time.
  const shared = new Uint8Array(7);
  const decoder = new EventStreamDecoder();
  const types: string[] = [];
  for (let offset = 0; offset < all.length; offset += shared.length) {
    const piece = all.subarray(offset, offset + shared.length);
    shared.set(piece);
    for (const frame of decoder.push(shared.subarray(0, piece.length))) {
      types.push(`${frame.headers[":event-type"]}`);
    }
  }
  decoder.end();
  assert.deepEqual(types, ["contentBlockDelta", "contentBlockDelta"]);
});
