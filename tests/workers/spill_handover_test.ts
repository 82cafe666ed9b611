/**
 * A spill file of an isolate that no longer starts: with PostgreSQL each further isolate spills
 * to `<SOVRA_SPILL_PATH>.worker-<i>`, replayed by the isolate of that index at its next start.
 * A process started with fewer isolates (SOVRA_WORKERS lowered, or a machine with fewer cores)
 * must still bill what those files hold: the primary takes them over and replays them, once.
 */
import assert from "node:assert/strict";
import { chatModel, SIM_KEY, writeCatalog } from "../helpers/harness.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { openPgStore, type PgStore } from "../../src/state/postgres/pg_store.ts";
import { buildRequestRecord } from "../../src/billing/settle.ts";
import { startGatewayWorkers } from "../../src/workers/pool.ts";
import { createLogger } from "../../src/log.ts";
import { Model } from "../../src/catalog/schema.ts";
import { closing } from "../helpers/dispose.ts";

const CREDITS = 1_000_000n;

Deno.test("SOVRA_WORKERS lowered — a further isolate's spill file is replayed by the primary, billed once", async () => {
  const cluster = await startPostgres();
  const dir = await Deno.makeTempDir({ prefix: "sovra-spill-handover-" });
  try {
    const url = await cluster.database();
    await Deno.mkdir(`${dir}/catalog`);
    const model = chatModel("acme/chat", "up");
    await writeCatalog(`${dir}/catalog`, {
      "sim-a": { dialect: "openai", base_url: "http://127.0.0.1:9", api_key_env: "SIM_KEY" },
    }, [model]);
    const setup = await openPgStore(url, { spillPath: undefined });
    const org = "org_spill";
    await setup.createOrg(
      { id: org, name: "Spill org", created: new Date().toISOString() },
      CREDITS,
    );
    await setup.close();

    // What isolate 2 of an earlier run (SOVRA_WORKERS=3) spilled while the database was away.
    const record = buildRequestRecord({
      id: "req_spilled_by_worker_2",
      startedAt: Date.now() - 60_000,
      org,
      keyId: "key_x",
      user: undefined,
      endpoint: "chat",
      requestedModel: "acme/chat",
      model: Model.parse(model),
      servedModel: "up",
      provider: "sim-a",
      status: 200,
      stream: false,
      fallbacks: 0,
      promptTokens: 1_000,
      completionTokens: 1_000,
      estimated: false,
    });
    assert.ok(record.cost_micro_eur > 0);
    const orphan = `${dir}/spill.jsonl.worker-2`;
    await Deno.writeTextFile(orphan, JSON.stringify(record) + "\n");

    await using gateway = closing(
      await startGatewayWorkers({
        SOVRA_PORT: "0",
        SOVRA_DATABASE_URL: url,
        SOVRA_SPILL_PATH: `${dir}/spill.jsonl`,
        SOVRA_CATALOG: `${dir}/catalog`,
        SOVRA_LOG: "error",
        SOVRA_WORKERS: "1",
        SIM_KEY,
      }, { log: createLogger("error") }),
    );
    const store = gateway.deps.store as PgStore;
    await store.spillDrained(20_000);
    const rows = await store.listRequests(org, 10);
    assert.deepEqual(rows.map((r) => r.id), [record.id], "the spilled settle is on record");
    const view = await store.getOrg(org);
    assert.equal(view?.balance_micro_eur, Number(CREDITS) - record.cost_micro_eur);
    await assert.rejects(() => Deno.stat(orphan), Deno.errors.NotFound);
  } finally {
    await cluster.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
