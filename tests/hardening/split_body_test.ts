/**
 * A body written in its own write after its headers — what httpx (under the openai Python SDK,
 * LiteLLM, LangChain) does on a reused connection — is answered as the request it is: 200,
 * or the refusal its key earns (401, 402, 429), never a 400. From immediately to 200 ms later,
 * with TCP_NODELAY, on fresh and reused connections, with one API isolate and with two
 * (`SOVRA_WORKERS=2`), and with no connection variable set. A refusal that comes before the body
 * was read leaves the connection correct: it says `connection: close` and ends, or the next
 * request on it is answered correctly. Before, the connection relay rewrote a refusal that
 * raced the body into 400 "not valid HTTP/1.1" (up to 29 of 40 trials at a 0.2 ms pause).
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startProcessGateway } from "./process_gateway.ts";
import { chatRequest, pause, type RawAnswer, RawConnection } from "./raw_http.ts";

/** Sub-millisecond pauses are where the old relay raced (httpx's reused-connection timing). */
const PAUSES_MS = [0, 0.1, 0.2, 0.5, 1, 5, 20, 200];
/** Trials per pause below 1 ms (the race is a matter of chance there), else 1. */
const SUB_MS_TRIALS = 4;

/** Waits `ms`; below a millisecond by spinning (timers are millisecond-grained). */
async function wait(ms: number) {
  if (ms >= 1) return await pause(ms);
  const until = performance.now() + ms;
  while (performance.now() < until) { /* spin */ }
}

async function send(
  conn: RawConnection,
  key: string,
  pauseMs: number,
): Promise<RawAnswer | undefined> {
  const { head, body } = chatRequest(key);
  await conn.write(head);
  if (pauseMs > 0) await wait(pauseMs);
  await conn.write(body).catch(() => {}); // a server that closed after a refusal: see answer
  return await conn.answer();
}

for (const workers of ["1", "2"]) {
  Deno.test(`split body (SOVRA_WORKERS=${workers}) — never 400, refusals keep the connection correct`, async () => {
    await using gw = await startProcessGateway({
      models: [chatModel("acme/chat", "up")],
      extraKeys: [{ credits: 0, rpm: 1_000_000 }, { credits: 1_000_000_000, rpm: 1 }],
      env: { SOVRA_WORKERS: workers },
    });
    const port = Number(new URL(gw.url).port);
    const [broke, limited] = gw.extra as [string, string];
    const cases: Array<[string, string, number]> = [
      ["valid", gw.key, 200],
      ["unknown key", "sk-sovra-not-a-key-at-all-0000000000", 401],
      ["no credit", broke, 402],
      ["rpm spent", limited, 429],
    ];
    // Spend the rpm-1 key's minute.
    const warm = await RawConnection.open(port);
    assert.equal((await send(warm, limited, 0))?.status, 200);
    warm.close();

    const seen: string[] = [];
    for (const [name, key, expected] of cases) {
      for (const pauseMs of PAUSES_MS) {
        for (const trial of Array.from({ length: pauseMs < 1 ? SUB_MS_TRIALS : 1 }, (_, i) => i)) {
          for (const noDelay of [trial % 2 === 1, trial % 2 === 0]) {
            // Fresh: one request per connection.
            const fresh = await RawConnection.open(port, { noDelay });
            const answer = await send(fresh, key, pauseMs);
            fresh.close();
            assert.equal(
              answer?.status,
              expected,
              `${name}, fresh, ${pauseMs} ms: ${answer?.body}`,
            );
            if (expected !== 200) {
              const error = JSON.parse(answer!.body).error;
              assert.equal(typeof error.code, "string");
              assert.equal(typeof error.message, "string");
            }
            // Reused: three requests one after another on one connection, as a pool does; a
            // connection the server closes after saying so is replaced, as a client does.
            let conn = await RawConnection.open(port, { noDelay });
            for (let i = 0; i < 3; i++) {
              const again = await send(conn, key, pauseMs);
              assert.equal(again?.status, expected, `${name}, reused #${i}, ${pauseMs} ms`);
              const closes = again!.headers.get("connection") === "close";
              seen.push(closes ? "close" : "keep-alive");
              if (closes) {
                assert.equal(await conn.closedWithin(5_000), true, "says close, then closes");
                conn = await RawConnection.open(port, { noDelay });
              }
            }
            conn.close();
          }
        }
      }
    }
    assert.ok(seen.includes("keep-alive"), "keep-alive reuse was exercised");
  });
}
