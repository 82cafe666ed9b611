/**
 * The connection guard's relay buffers (src/http/relay_buffer.ts): small while reads are
 * small (what an open stream holds while it waits), large after a read fills the small one,
 * small again after a run of small reads; and bytes larger than the small buffer cross the
 * guard intact in both directions.
 */
import assert from "node:assert/strict";
import { RelayBuffer } from "../../src/http/relay_buffer.ts";
import { serveGuarded } from "../../src/http/connection_guard.ts";
import { createLogger } from "../../src/log.ts";

Deno.test("relay buffer — small for small reads, large after a full read, small again after 8 small reads", () => {
  const buffers = new RelayBuffer(4, 16);
  assert.equal(buffers.next().length, 4);
  buffers.filled(3);
  assert.equal(buffers.next().length, 4);
  buffers.filled(4);
  assert.equal(buffers.next().length, 16);
  buffers.filled(16);
  for (let i = 0; i < 7; i++) buffers.filled(2);
  assert.equal(buffers.size, 16, "seven small reads keep the large buffer");
  buffers.filled(9);
  for (let i = 0; i < 7; i++) buffers.filled(2);
  assert.equal(buffers.size, 16, "a large read restarts the count");
  buffers.filled(2);
  assert.equal(buffers.size, 4);
  assert.equal(buffers.next().length, 4);
});

Deno.test("connection guard — bodies far larger than the relay's small buffer cross it intact both ways", async () => {
  const server = serveGuarded(
    {
      hostname: "127.0.0.1",
      port: 0,
      limits: { headerTimeoutMs: 5_000, idleTimeoutMs: 5_000, maxConnections: 16 },
      log: createLogger("error"),
    },
    async (request) => {
      const bytes = new Uint8Array(await request.arrayBuffer());
      // Echo reversed, so a reordering or a reused buffer shows.
      return new Response(bytes.reverse());
    },
  );
  try {
    const sent = new Uint8Array(300_000);
    for (let i = 0; i < sent.length; i++) sent[i] = (i * 7919) % 251;
    for (const size of [10, 2_048, 2_049, 70_000, 300_000]) {
      const body = sent.slice(0, size);
      const response = await fetch(`http://127.0.0.1:${server.addr.port}/echo`, {
        method: "POST",
        body,
      });
      const got = new Uint8Array(await response.arrayBuffer());
      assert.deepEqual(got, body.slice().reverse(), `size ${size}`);
    }
  } finally {
    await server.shutdown();
  }
});
