/**
 * `SOVRA_CONNECTION_GUARD=off` (issue 18): behind a load balancer that enforces header and idle
 * limits itself, the gateway serves straight from `Deno.serve` without the relay. The same
 * silent connection the guard closes within its header timeout stays open, and requests
 * (JSON and stream) are answered as usual. An invalid value stops the start.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { chatModel } from "../helpers/harness.ts";
import { startProcessGateway } from "./process_gateway.ts";
import { ConfigError, configFromEnv } from "../../src/config.ts";

const decoder = new TextDecoder();

/** True when the server closed `conn` within `ms`; false when it was still open. */
async function closedWithin(conn: Deno.Conn, ms: number): Promise<boolean> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, ms);
  const buffer = new Uint8Array(1024);
  try {
    while ((await conn.read(buffer)) !== null) decoder.decode(buffer);
  } catch {
    // closed by our timer
  } finally {
    clearTimeout(timer);
  }
  if (!timedOut) conn.close();
  return !timedOut;
}

for (const guard of ["on", "off"] as const) {
  Deno.test(
    `SOVRA_CONNECTION_GUARD=${guard}: requests are served; a silent connection is ${
      guard === "on" ? "closed" : "left to the load balancer"
    }`,
    async () => {
      const gw = await startProcessGateway({
        models: [chatModel("acme/chat", "up")],
        env: { SOVRA_CONNECTION_GUARD: guard, SOVRA_HEADER_TIMEOUT_MS: "300" },
      });
      try {
        const client = new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
        const answer = await client.chat.completions.create({
          model: "acme/chat",
          messages: [{ role: "user", content: "hello" }],
        });
        assert.equal(answer.model, "acme/chat");
        const stream = await client.chat.completions.create({
          model: "acme/chat",
          messages: [{ role: "user", content: "hello" }],
          stream: true,
        });
        let chunks = 0;
        for await (const chunk of stream) {
          assert.equal(chunk.model, "acme/chat");
          chunks++;
        }
        assert.ok(chunks > 1);

        const silent = await Deno.connect({
          hostname: "127.0.0.1",
          port: Number(new URL(gw.url).port),
        });
        // 300 ms header timeout against a 3 s window: liveness bounds, not a speed assert.
        assert.equal(await closedWithin(silent, 3_000), guard === "on");
      } finally {
        await gw.close();
      }
    },
  );
}

Deno.test("SOVRA_CONNECTION_GUARD: default on; 'off'/'false' turn it off; anything else is refused", () => {
  assert.equal(configFromEnv({}).connectionGuard, true);
  assert.equal(configFromEnv({ SOVRA_CONNECTION_GUARD: "off" }).connectionGuard, false);
  assert.equal(configFromEnv({ SOVRA_CONNECTION_GUARD: "false" }).connectionGuard, false);
  assert.equal(configFromEnv({ SOVRA_CONNECTION_GUARD: "on" }).connectionGuard, true);
  assert.throws(() => configFromEnv({ SOVRA_CONNECTION_GUARD: "no" }), ConfigError);
});
