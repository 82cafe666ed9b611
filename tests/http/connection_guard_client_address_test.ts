/**
 * Behind the connection guard the handler sees the client's address, not the relay's loopback
 * connection (the dashboard throttles sign-ins per client address).
 */
import assert from "node:assert/strict";
import { serveGuarded } from "../../src/http/connection_guard.ts";
import { createLogger } from "../../src/log.ts";

Deno.test("connection guard — the handler's remoteAddr is the client's connection, not the relay's", async () => {
  const server = serveGuarded(
    {
      hostname: "127.0.0.1",
      port: 0,
      limits: { headerTimeoutMs: 5_000, idleTimeoutMs: 5_000, maxConnections: 8 },
      log: createLogger("error"),
    },
    (_request, info) => new Response(`${info.remoteAddr.hostname}:${info.remoteAddr.port}`),
  );
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  try {
    const local = conn.localAddr as Deno.NetAddr;
    await conn.write(
      new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    );
    let text = "";
    const buffer = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    assert.ok(text.endsWith(`\r\n\r\n127.0.0.1:${local.port}`), text);
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
    await server.shutdown();
  }
});
