/**
 * `SOVRA_WORKERS`: the request API in several isolates on one port. Through
 * real HTTP on a real KV file: connections land on both isolates (the kernel spreads them,
 * `SO_REUSEPORT`), and billing stays exact across them — every request is one record and the
 * organization's balance falls by exactly the sum of their costs.
 */
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { chatModel, SIM_KEY, writeCatalog } from "../helpers/harness.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { effectiveWorkers, startGatewayWorkers } from "../../src/workers/pool.ts";
import { configFromEnv } from "../../src/config.ts";
import { startAdmissionRecovery } from "../../src/state/admission_recovery.ts";
import { createLogger } from "../../src/log.ts";
import { startProcessGateway } from "../hardening/process_gateway.ts";
import { logRecord } from "../contract/process_support.ts";
import { closing } from "../helpers/dispose.ts";

const CREDITS = 1_000_000_000;
const REQUESTS = 40;

Deno.test("SOVRA_WORKERS=2 — requests are served by both isolates and billed exactly once each", async () => {
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-workers-" });
  const kvPath = `${dir}/sovra.kv`;
  await Deno.mkdir(`${dir}/catalog`);
  await writeCatalog(`${dir}/catalog`, {
    "sim-a": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
  }, [chatModel("acme/chat", "up")]);
  const setup = await openKvStore(kvPath);
  const org = await runAdminCommand(setup, {
    command: ["org", "create"],
    flags: { name: "Workers org", "credits-micro-eur": String(CREDITS) },
    defaultRpm: 600,
  }) as { id: string };
  const { key } = await runAdminCommand(setup, {
    command: ["key", "create"],
    flags: { org: org.id, rpm: "1000000" },
    defaultRpm: 600,
  }) as { key: string };
  await setup.close();

  const gateway = await startGatewayWorkers({
    SOVRA_PORT: "0",
    SOVRA_KV: kvPath,
    SOVRA_CATALOG: `${dir}/catalog`,
    SOVRA_LOG: "error",
    SOVRA_WORKERS: "2",
    SOVRA_METRICS_PORT: "0",
    SIM_KEY,
  }, { log: createLogger("error") });
  let closed = false;
  try {
    assert.equal(gateway.workers, 2);
    // One connection per request (a new client each), so the kernel picks an isolate each time.
    const statuses = await Promise.all(Array.from({ length: REQUESTS }, async (_, i) => {
      const client = Deno.createHttpClient({});
      try {
        const res = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          client,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: "acme/chat",
            messages: [{ role: "user", content: `question ${i}` }],
            ...(i % 2 === 0 ? { stream: true, stream_options: { include_usage: true } } : {}),
          }),
        });
        await res.text();
        return res.status;
      } finally {
        client.close();
      }
    }));
    assert.deepEqual(statuses, Array(REQUESTS).fill(200));
    const served = await gateway.servedPerWorker();
    assert.equal(served.length, 2);
    assert.equal(served[0]! + served[1]!, REQUESTS);
    assert.ok(served.every((n) => n > 0), `served per isolate: ${served.join(", ")}`);
    // One scrape of the primary's /metrics counts every isolate's requests (a stream's metrics
    // are taken at its settle, just after its last byte: scrape again for a few seconds at most).
    const requestsTotal = async () => {
      const scrape = await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`);
      const families = parsePrometheusTextFormat(await scrape.text()) as Array<
        { name: string; metrics: Array<{ value?: string }> }
      >;
      const requests = families.find((f) => f.name === "sovra_requests_total");
      return (requests?.metrics ?? []).reduce((sum, m) => sum + Number(m.value ?? 0), 0);
    };
    let total = await requestsTotal();
    for (let i = 0; i < 50 && total < REQUESTS; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      total = await requestsTotal();
    }
    assert.equal(total, REQUESTS, "sovra_requests_total summed over both isolates");
    // Drain: every isolate flushes its settles and closes its store connection.
    await gateway.drain();
    closed = true;

    await using store = closing(await openKvStore(kvPath));
    const rows = await store.listRequests(org.id, 1000);
    assert.equal(rows.length, REQUESTS, "one record per request");
    assert.equal(new Set(rows.map((r) => r.id)).size, REQUESTS);
    assert.ok(rows.every((r) => r.status === 200 && r.cost_micro_eur > 0));
    const cost = rows.reduce((sum, r) => sum + r.cost_micro_eur, 0);
    const view = await store.getOrg(org.id);
    assert.equal(view?.spent_micro_eur, cost);
    assert.equal(view?.balance_micro_eur, CREDITS - cost);
  } finally {
    if (!closed) await gateway.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SOVRA_WORKERS — default is the machine's cores; an in-memory KV store keeps one isolate", () => {
  const base = { SOVRA_KV: "/tmp/x.kv" };
  assert.equal(configFromEnv(base).workers, navigator.hardwareConcurrency);
  assert.equal(configFromEnv({ ...base, SOVRA_WORKERS: "3" }).workers, 3);
  assert.throws(() => configFromEnv({ ...base, SOVRA_WORKERS: "0" }), /SOVRA_WORKERS/);
  assert.equal(effectiveWorkers(configFromEnv({ ...base, SOVRA_WORKERS: "4" })), 4);
  assert.equal(effectiveWorkers(configFromEnv({ SOVRA_KV: ":memory:", SOVRA_WORKERS: "4" })), 1);
});

Deno.test("main.ts with SOVRA_WORKERS=2 — serves through both isolates, reloads every catalog on SIGHUP, drains on SIGTERM", async () => {
  await using gw = await startProcessGateway({
    models: [chatModel("acme/chat", "up")],
    env: { SOVRA_WORKERS: "2" },
  });
  const listening = logRecord(
    await gw.main.waitForLine((l) => l.includes("sovra listening")),
  );
  assert.equal(listening.workers, 2);
  const statuses = await Promise.all(Array.from({ length: 10 }, async () => {
    const client = Deno.createHttpClient({});
    try {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        client,
        headers: { authorization: `Bearer ${gw.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "acme/chat", messages: [{ role: "user", content: "hi" }] }),
      });
      await res.text();
      return res.status;
    } finally {
      client.close();
    }
  }));
  assert.deepEqual(statuses, Array(10).fill(200));
  const from = gw.main.lines.length;
  gw.main.signal("SIGHUP");
  // Each isolate reloads its own catalog: two reload lines.
  await gw.main.waitForLine((l) => l.includes("catalog reloaded"), from);
  const deadline = Date.now() + 15_000;
  while (
    gw.main.lines.slice(from).filter((l) => l.includes("catalog reloaded")).length < 2 &&
    Date.now() < deadline
  ) await new Promise((r) => setTimeout(r, 100));
  assert.equal(
    gw.main.lines.slice(from).filter((l) => l.includes("catalog reloaded")).length,
    2,
  );
  gw.main.signal("SIGTERM");
  assert.equal((await gw.main.status).code, 0);
});

Deno.test("admission recovery in a worker isolate — renews its own lease, leaves settling others to the primary", async () => {
  await using store = closing(await openKvStore(":memory:"));
  const calls = { renew: 0, recover: 0 };
  const counted = {
    renewLease: (instance: string, expiresAt: number) => {
      calls.renew++;
      return store.renewLease(instance, expiresAt);
    },
    recoverAdmissions: (self: string, now: number) => {
      calls.recover++;
      return store.recoverAdmissions(self, now);
    },
  } as unknown as Parameters<typeof startAdmissionRecovery>[0];
  const log = createLogger("error");
  const worker = startAdmissionRecovery(counted, "inst_worker", 60_000, log, false);
  await worker.started;
  await worker.stop();
  assert.deepEqual(calls, { renew: 1, recover: 0 });
  const primary = startAdmissionRecovery(counted, "inst_primary", 60_000, log);
  await primary.started;
  await primary.stop();
  assert.deepEqual(calls, { renew: 2, recover: 1 });
});
