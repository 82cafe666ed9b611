/**
 * The connection guard's header and idle limits, now checked by one interval for every
 * connection instead of a timer per request (src/http/connection_guard.ts). Deno.serve (2.9.6)
 * enforces neither limit itself: a client trickling its headers a byte at a time, or sitting
 * idle, keeps its connection for as long as it likes, so these must hold through the guard.
 */
import assert from "node:assert/strict";
import { serveGuarded } from "../../src/http/connection_guard.ts";
import { createLogger } from "../../src/log.ts";

const LIMITS = { headerTimeoutMs: 300, idleTimeoutMs: 300, maxConnections: 64 };
/** A liveness bound against the 0.3 s limits, not a speed assert. */
const WITHIN_MS = 5_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Everything received until the server closes (or `ms` pass: undefined). */
async function readUntilClosed(conn: Deno.Conn, ms: number): Promise<string | undefined> {
  const buffer = new Uint8Array(4096);
  let text = "";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn.close();
    } catch { /* closed */ }
  }, ms);
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n));
    }
  } catch { /* reset or closed by the timer */ }
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* closed */ }
  return timedOut ? undefined : text;
}

Deno.test("connection guard — a trickled header, a silent and an idle connection are closed; a slow request is not cut", async () => {
  const server = serveGuarded(
    { hostname: "127.0.0.1", port: 0, limits: LIMITS, log: createLogger("error") },
    async (request) => {
      // Longer than both limits: a request in flight is never cut by them.
      if (new URL(request.url).pathname === "/slow") {
        await new Promise((resolve) => setTimeout(resolve, 900));
      }
      return new Response("ok");
    },
  );
  const connect = () => Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  try {
    const trickle = await connect();
    await trickle.write(encoder.encode("GET / HTTP/1.1\r\nHost: x\r\n"));
    let trickling = true;
    const dripping = (async () => {
      while (trickling) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await trickle.write(encoder.encode("X")).catch(() => (trickling = false));
      }
    })();
    const silent = await connect();
    const slow = await connect();
    await slow.write(encoder.encode("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"));
    const [t, s, k] = await Promise.all([
      readUntilClosed(trickle, WITHIN_MS),
      readUntilClosed(silent, WITHIN_MS),
      readUntilClosed(slow, WITHIN_MS),
    ]);
    trickling = false;
    await dripping;
    assert.notEqual(t, undefined, "a connection trickling its headers is closed");
    assert.equal(s, "", "a silent connection is closed without an answer");
    assert.ok(
      k?.startsWith("HTTP/1.1 200"),
      `the slow request got its answer, then idled out: ${k}`,
    );
    assert.ok(k?.endsWith("ok"));
  } finally {
    await server.shutdown();
  }
  assert.equal(server.open, 0);
});
