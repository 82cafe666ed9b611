/**
 * What the process itself enforces on its connections, with no connection variable set (the
 * rest is the front proxy's: tests/ops/front_proxy_test.ts):
 * - a JSON body (API) or form (dashboard) sent too slowly gets 400 `upload_timeout` at
 *   `SOVRA_BODY_TIMEOUT_MS` after its headers, within a second (it took 42 s for 30 s before);
 * - an exhausted open-file limit (EMFILE) ends no listener: the API, the dashboard and
 *   `/metrics` all answer again once descriptors are back (`Deno.serve` alone would have died).
 * Both run with one isolate and with two (`SOVRA_WORKERS=2`).
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { logRecord } from "../contract/process_support.ts";
import { until } from "../helpers/until.ts";
import { healthzWithin, type ProcessGateway, startProcessGateway } from "./process_gateway.ts";
import { chatRequest, pause, RawConnection, stoppedBody } from "./raw_http.ts";

const BODY_TIMEOUT_MS = 2_000;

async function listeners(gw: ProcessGateway): Promise<Record<string, string>> {
  const started = logRecord(await gw.main.waitForLine((l) => l.includes('"sovra listening"')));
  const dashboard = logRecord(
    await gw.main.waitForLine((l) => l.includes('"sovra dashboard listening"')),
  );
  return {
    api: `${gw.url}/healthz`,
    dashboard: `${dashboard.url}/login`,
    metrics: String(started.metrics),
  };
}

for (const workers of ["1", "2"]) {
  Deno.test(`body deadline (SOVRA_WORKERS=${workers}) — a slow body gets 400 upload_timeout at SOVRA_BODY_TIMEOUT_MS ±1 s, API and dashboard`, async () => {
    await using gw = await startProcessGateway({
      models: [chatModel("acme/chat", "up")],
      env: { SOVRA_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS), SOVRA_WORKERS: workers },
    });
    const urls = await listeners(gw);
    const { head, body } = chatRequest(gw.key);
    const form = "email=a%40b.test&password=correct-horse-battery";
    const cases: Array<[string, number, string, string]> = [
      ["api", Number(new URL(gw.url).port), head, body],
      [
        "dashboard",
        Number(new URL(urls.dashboard!).port),
        `POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${
          new URL(urls.dashboard!).origin
        }\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n`,
        form,
      ],
    ];
    const results = await Promise.all(cases.map(([, port, h, b]) => stoppedBody(port, h, b)));
    for (const [i, [name]] of cases.entries()) {
      const { answer, ms } = results[i]!;
      assert.equal(answer?.status, 400, `${name}: ${answer?.body}`);
      if (name === "api") assert.equal(JSON.parse(answer!.body).error.code, "upload_timeout");
      // The limit itself, not a speed: no earlier than it, at most one second after it.
      assert.ok(ms >= BODY_TIMEOUT_MS - 50 && ms <= BODY_TIMEOUT_MS + 1_000, `${name}: ${ms} ms`);
    }
  });

  Deno.test(`EMFILE (SOVRA_WORKERS=${workers}) — an exhausted open-file limit ends no listener: API, dashboard and /metrics answer again`, async () => {
    await using gw = await startProcessGateway({
      models: [chatModel("acme/chat", "up")],
      fdLimit: 256,
      env: { SOVRA_METRICS_PORT: "0", SOVRA_WORKERS: workers },
    });
    const urls = await listeners(gw);
    const ports = Object.values(urls).map((u) => Number(new URL(u).port));
    const held: RawConnection[] = [];
    for (const port of ports) {
      for (let i = 0; i < 300; i++) {
        try {
          held.push(await RawConnection.open(port));
        } catch {
          break; // the backlog is full: enough
        }
      }
    }
    // The attack exhausts the descriptors: the listener says so.
    await until(
      "the listener's failure",
      () => gw.main.lines.some((l) => l.includes("http listener failed")),
      30_000,
    );
    for (const conn of held) conn.close();
    for (const [name, url] of Object.entries(urls)) {
      let status = 0;
      const deadline = Date.now() + 30_000; // a liveness bound on a loaded machine
      while (status !== 200 && Date.now() < deadline) {
        status = await fetch(url, { signal: AbortSignal.timeout(2_000) })
          .then(async (r) => (await r.body?.cancel(), r.status), () => 0);
        if (status !== 200) await pause(200);
      }
      assert.equal(status, 200, `${name} answers again:\n${gw.main.lines.join("\n")}`);
    }
    assert.equal(await healthzWithin(gw.url, 3_000), true);
  });
}
