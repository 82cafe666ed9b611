/**
 * Issue 17 item 2 for the other listeners of the process: the dashboard and `/metrics` sit
 * behind the same connection guard as the API (header and idle timeouts, a ceiling). Before,
 * they were plain `Deno.serve` servers: a silent or half-sent connection stayed open forever.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { startDashboardBeside } from "../../src/dashboard/server.ts";
import { silentLogger } from "../../src/log.ts";

const CLOSED_WITHIN_MS = 6_000; // a liveness bound against 0.5 s timeouts
const encoder = new TextEncoder();

/** Whether the server closed the connection within `ms` (what it sent first is ignored). */
async function closedWithin(conn: Deno.Conn, ms: number): Promise<boolean> {
  const timer = setTimeout(() => conn.close(), ms);
  const buffer = new Uint8Array(4096);
  try {
    while ((await conn.read(buffer)) !== null) { /* drain */ }
    return true;
  } catch {
    return false; // closed by our timer: the server kept it open
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

Deno.test("attack — the dashboard and /metrics listeners close silent, half-header and idle connections", async () => {
  const h = await startHarness({
    models: [chatModel("acme/chat", "up")],
    env: {
      SOVRA_METRICS_PORT: "0",
      SOVRA_DASHBOARD_PORT: "0",
      SOVRA_HEADER_TIMEOUT_MS: "500",
      SOVRA_IDLE_TIMEOUT_MS: "500",
    },
  });
  const dashboard = startDashboardBeside(h.gateway, silentLogger);
  try {
    const listeners: Array<[string, number]> = [
      ["dashboard", dashboard.port],
      ["metrics", h.gateway.metricsPort!],
    ];
    for (const [name, port] of listeners) {
      const connect = () => Deno.connect({ hostname: "127.0.0.1", port });
      const silent = await connect();
      const half = await connect();
      await half.write(encoder.encode("GET / HTTP/1.1\r\nHost: x\r\n"));
      const kept = await connect();
      await kept.write(encoder.encode("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
      const closed = await Promise.all(
        [silent, half, kept].map((c) => closedWithin(c, CLOSED_WITHIN_MS)),
      );
      assert.deepEqual(closed, [true, true, true], `${name}: silent, half-header, idle closed`);
      // Still serving afterwards.
      const res = await fetch(`http://127.0.0.1:${port}/${name === "metrics" ? "metrics" : ""}`);
      await res.body?.cancel();
      assert.ok(res.status < 500, `${name}: ${res.status}`);
    }
  } finally {
    await dashboard.close();
    await h.close();
  }
});
