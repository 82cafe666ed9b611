/**
 * Upstream connections idle longer than `SOVRA_UPSTREAM_IDLE_MS` are closed (the fetch
 * client's pool, providers/transport/upstream_client.ts). Before, Deno's default client kept
 * them until the provider closed them: 167 of a burst of 300 streams' sockets were still open
 * ~170 s later. Counted from the kernel's table of this machine's TCP connections.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startProcessGateway } from "./process_gateway.ts";
import { pause } from "./raw_http.ts";

const IDLE_MS = 500;

/** Established TCP connections whose server side is 127.0.0.1:`port` (/proc/net/tcp). */
async function establishedTo(port: number): Promise<number> {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const table = await Deno.readTextFile("/proc/net/tcp");
  return table.split("\n").slice(1).filter((line) => {
    const fields = line.trim().split(/\s+/);
    return fields[2] === `0100007F:${hex}` && fields[3] === "01";
  }).length;
}

Deno.test("upstream pool — connections idle longer than SOVRA_UPSTREAM_IDLE_MS are closed", async () => {
  await using gw = await startProcessGateway({
    models: [chatModel("acme/chat", "up+chunks-5")],
    env: { SOVRA_UPSTREAM_IDLE_MS: String(IDLE_MS) },
  });
  const simPort = Number(new URL(gw.sim.url).port);
  const burst = await Promise.all(Array.from({ length: 30 }, async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${gw.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "acme/chat",
        messages: [{ role: "user", content: "Hello" }],
        stream: true,
      }),
    });
    await res.text();
    return res.status;
  }));
  assert.deepEqual([...new Set(burst)], [200]);
  const afterBurst = await establishedTo(simPort);
  assert.ok(afterBurst > 0, "the burst left pooled connections to the provider");
  let open = afterBurst;
  const deadline = Date.now() + 15_000; // a liveness bound, far above the 0.5 s idle time
  while (open > 0 && Date.now() < deadline) {
    await pause(100);
    open = await establishedTo(simPort);
  }
  assert.equal(open, 0, `${afterBurst} pooled connections, ${open} still open`);
});
