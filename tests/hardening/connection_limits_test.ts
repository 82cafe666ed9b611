/**
 * Attack (issue 17, item 2): idle, slow and too many connections. Connections that send no
 * bytes, stop halfway through their headers, sit idle after a request or send a JSON body
 * too slowly are closed; beyond the connection ceiling a connection gets a 503 error object;
 * an exhausted open-file limit (EMFILE) does not end the process.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { healthzWithin, type ProcessGateway, startProcessGateway } from "./process_gateway.ts";

const SHORT = {
  SOVRA_HEADER_TIMEOUT_MS: "500",
  SOVRA_IDLE_TIMEOUT_MS: "500",
  SOVRA_BODY_TIMEOUT_MS: "1000",
};
/** Generous against the 0.5–1 s limits above: a liveness bound, not a speed assert. */
const CLOSED_WITHIN_MS = 6_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function connect(url: string): Promise<Deno.TcpConn> {
  return await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(url).port) });
}

/** Everything the server sends until it closes the connection (or `ms` pass: undefined). */
async function readUntilClosed(conn: Deno.Conn, ms: number): Promise<string | undefined> {
  const timer = setTimeout(() => conn.close(), ms);
  let text = "";
  const buffer = new Uint8Array(16 * 1024);
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n));
    }
  } catch {
    return undefined; // closed by our timer: the server kept it open
  } finally {
    clearTimeout(timer);
  }
  try {
    conn.close();
  } catch { /* closed */ }
  return text;
}

function bodyOf(response: string | undefined): string {
  assert.ok(response !== undefined);
  return response.slice(response.indexOf("\r\n\r\n") + 4);
}

function withGateway(
  options: { env?: Record<string, string>; fdLimit?: number },
  fn: (gw: ProcessGateway) => Promise<void>,
): Promise<void> {
  return (async () => {
    const gw = await startProcessGateway({
      models: [chatModel("acme/chat", "up")],
      env: { ...SHORT, ...options.env },
      ...(options.fdLimit ? { fdLimit: options.fdLimit } : {}),
    });
    try {
      await fn(gw);
    } finally {
      await gw.close();
    }
  })();
}

Deno.test("attack — silent, half-header and idle keep-alive connections are closed", () =>
  withGateway({}, async (gw) => {
    const silent = await connect(gw.url);
    const half = await connect(gw.url);
    await half.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
    const kept = await connect(gw.url);
    await kept.write(encoder.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    const [a, b, c] = await Promise.all([
      readUntilClosed(silent, CLOSED_WITHIN_MS),
      readUntilClosed(half, CLOSED_WITHIN_MS),
      readUntilClosed(kept, CLOSED_WITHIN_MS),
    ]);
    assert.equal(a, "", "a silent connection is closed without an answer");
    assert.notEqual(b, undefined, "a connection stuck in its headers is closed");
    assert.ok(c?.startsWith("HTTP/1.1 200"), `the kept-alive one got its answer first: ${c}`);
    assert.equal(await healthzWithin(gw.url, 3_000), true);
  }));

Deno.test("attack — a JSON body sent too slowly gets 400 upload_timeout and the connection closes", () =>
  withGateway({}, async (gw) => {
    const conn = await connect(gw.url);
    const body = JSON.stringify({
      model: "acme/chat",
      messages: [{ role: "user", content: "hi" }],
    });
    await conn.write(encoder.encode(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${
          body.slice(0, 5)
        }`,
    ));
    const text = await readUntilClosed(conn, CLOSED_WITHIN_MS);
    assert.ok(text?.startsWith("HTTP/1.1 400"), `got ${text}`);
    const json = JSON.parse(bodyOf(text));
    assert.equal(json.error.code, "upload_timeout");
    assert.equal(typeof json.error.message, "string");
    assert.equal(typeof json.error.type, "string");
  }));

Deno.test("attack — beyond the connection ceiling a connection gets 503 with the error object; the gateway recovers", () =>
  withGateway(
    { env: { SOVRA_MAX_CONNECTIONS: "20", SOVRA_HEADER_TIMEOUT_MS: "1500" } },
    async (gw) => {
      const held = await Promise.all(Array.from({ length: 20 }, () => connect(gw.url)));
      // Give the gateway time to accept them all before the extra one.
      await new Promise((r) => setTimeout(r, 200));
      const extra = await connect(gw.url);
      const text = await readUntilClosed(extra, CLOSED_WITHIN_MS);
      assert.ok(text?.startsWith("HTTP/1.1 503"), `got ${text}`);
      const json = JSON.parse(bodyOf(text));
      assert.equal(json.error.code, "server_busy");
      await Promise.all(held.map((c) => readUntilClosed(c, CLOSED_WITHIN_MS)));
      assert.equal(await healthzWithin(gw.url, 3_000), true, "the held ones timed out; room again");
    },
  ));

Deno.test("attack — an exhausted open-file limit (EMFILE) does not end the process", () =>
  withGateway({ fdLimit: 256, env: { SOVRA_MAX_CONNECTIONS: "5000" } }, async (gw) => {
    const conns: Deno.TcpConn[] = [];
    for (let i = 0; i < 400; i++) {
      try {
        conns.push(await connect(gw.url));
      } catch {
        break; // the backlog is full: enough
      }
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const c of conns) {
      try {
        c.close();
      } catch { /* closed by the gateway */ }
    }
    let alive = false;
    const deadline = Date.now() + 30_000; // generous: the machine may be loaded
    while (!alive && Date.now() < deadline) {
      alive = await healthzWithin(gw.url, 2_000);
      if (!alive) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(
      alive,
      true,
      `/healthz answers after the descriptors are back:\n${gw.main.lines.join("\n")}`,
    );
    assert.ok(
      gw.main.lines.some((l) => l.includes("accept failed") || l.includes("restarting")),
      "the attack did exhaust the descriptors",
    );
  }));

Deno.test("attack — HTTP-layer refusals (bad Content-Length, too many headers, bad request line) answer the error object", () =>
  withGateway({}, async (gw) => {
    const manyHeaders = Array.from({ length: 200 }, (_, i) => `x-h${i}: v\r\n`).join("");
    const attacks = [
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n",
      `GET /healthz HTTP/1.1\r\nHost: x\r\n${manyHeaders}\r\n`,
      "GARBAGE\r\n\r\n",
    ];
    for (const attack of attacks) {
      const conn = await connect(gw.url);
      await conn.write(encoder.encode(attack));
      const text = await readUntilClosed(conn, CLOSED_WITHIN_MS);
      assert.match(
        text ?? "",
        /^HTTP\/1\.1 4\d\d/,
        `${JSON.stringify(attack.slice(0, 40))}: ${text}`,
      );
      const json = JSON.parse(bodyOf(text));
      assert.equal(json.error.code, "invalid_request", attack.slice(0, 40));
      assert.equal(typeof json.error.message, "string");
      assert.equal(typeof json.error.type, "string");
    }
  }));
