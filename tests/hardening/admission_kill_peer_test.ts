/**
 * Crash safety with two live gateways on one KV file (one admission row
 * per group commit): both serve under load, one is killed with SIGKILL, the other keeps serving
 * and settles the dead one's admission rows once its lease has ended, while its own rows open and
 * close beside them. Every request a client saw succeed on either is billed, none twice; only
 * the dead process's requests are settled from their estimates (`recovered`), never one the live
 * process answered.
 */
import assert from "node:assert/strict";
import { chatModel, SIM_KEY, writeCatalog } from "../helpers/harness.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { logRecord, type MainProcess, startMain } from "../contract/process_support.ts";
import { chatBody } from "../helpers/api.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { until } from "../helpers/until.ts";

/** One chat request; its id when the client saw a 200 with a whole answer. */
async function chat(url: string, key: string, stream: boolean): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(chatBody("acme/chat", "Hello there", { stream })),
    });
    const text = await res.text();
    if (res.status !== 200) return undefined;
    if (stream && !text.includes("data: [DONE]")) return undefined;
    return res.headers.get("x-sovra-request-id") ?? undefined;
  } catch {
    return undefined; // the process died mid-answer: the client saw no success
  }
}

/** Clients calling `url` until `stop()`; the ids they saw answered. */
function load(url: string, key: string) {
  const answered: string[] = [];
  let stopped = false;
  const clients = Promise.all(Array.from({ length: 6 }, async (_, i) => {
    while (!stopped) {
      const id = await chat(url, key, i % 2 === 1);
      if (id) answered.push(id);
    }
  }));
  return {
    answered,
    async stop() {
      stopped = true;
      await clients;
    },
  };
}

Deno.test("attack — two gateways on one KV file, one killed under load: the other bills its admissions once, none of its own", async () => {
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-kill-peer-" });
  const kvPath = `${dir}/sovra.kv`;
  const store = await openKvStore(kvPath);
  const processes: MainProcess[] = [];
  try {
    await writeCatalog(
      dir,
      { "sim-a": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" } },
      // A slow upstream keeps requests, and so admission rows, open on both processes at every
      // recovery pass (one a lease).
      [{ sovereignty: "strict", ...chatModel("acme/chat", "sim-chat+slow-200") }],
    );
    const org = String(
      (await runAdminCommand(store, {
        command: ["org", "create"],
        flags: { name: "Peers", "credits-micro-eur": "100000000" },
        defaultRpm: 600,
      }) as { id: string }).id,
    );
    const key = String(
      (await runAdminCommand(store, {
        command: ["key", "create"],
        flags: { org, rpm: "100000" },
        defaultRpm: 600,
      }) as { key: string }).key,
    );
    const start = async () => {
      const main = startMain({
        SOVRA_PORT: "0",
        SOVRA_CATALOG: dir,
        SOVRA_KV: kvPath,
        SOVRA_LOG: "info",
        SOVRA_ALLOW_LOCAL_UPSTREAMS: "true",
        SOVRA_COMMIT_INTERVAL_MS: "300",
        SOVRA_INSTANCE_LEASE_MS: "1000",
        SIM_KEY,
      });
      processes.push(main);
      return String(logRecord(await main.waitForLine((l) => l.includes("sovra listening"))).url);
    };
    const [doomedUrl, liveUrl] = await Promise.all([start(), start()]);
    const doomed = load(doomedUrl, key);
    const live = load(liveUrl, key);
    await until(
      "answers from both",
      () => doomed.answered.length >= 30 && live.answered.length >= 30,
      60_000,
    );
    processes[0]!.signal("SIGKILL");
    await processes[0]!.stop();
    await doomed.stop();

    // The live process settles the dead one's admissions while it keeps serving.
    const servedBefore = live.answered.length;
    await until("every request the dead process answered billed", async () => {
      const ids = new Set((await store.listRequests(org, 10_000)).map((r) => r.id));
      return doomed.answered.every((id) => ids.has(id));
    }, 60_000);
    await until(
      "the live process served on",
      () => live.answered.length > servedBefore + 10,
      60_000,
    );
    await live.stop();
    await until("no admission row left open", async () => {
      for await (const _ of store.kv.list({ prefix: ["admission"] })) return false;
      return true;
    }, 60_000);

    const records = await store.listRequests(org, 10_000);
    const byId = new Map(records.map((r) => [r.id, r]));
    for (const id of [...doomed.answered, ...live.answered]) {
      assert.ok((byId.get(id)?.cost_micro_eur ?? 0) > 0, `${id} billed`);
    }
    for (const id of live.answered) {
      assert.equal(byId.get(id)!.recovered, undefined, `${id}: the live process's own settle`);
      assert.equal(byId.get(id)!.status, 200);
    }
    const recovered = records.filter((r) => r.recovered);
    const doomedIds = new Set(doomed.answered);
    for (const r of recovered) assert.equal(r.status, 0);
    // None twice: the debit and the daily count are exactly the records' sums.
    const [spent, requests] = await store.kv.getMany<Deno.KvU64[]>([
      ["credit", org, "spent"],
      ["usage_day", org, new Date().toISOString().slice(0, 10), "requests"],
    ]);
    assert.equal(
      Number(spent?.value?.value ?? 0n),
      records.reduce((sum, r) => sum + r.cost_micro_eur, 0),
    );
    assert.equal(Number(requests?.value?.value ?? 0n), records.length);
    console.log(JSON.stringify({
      measured: "kill -9 of one of two gateways on one KV file",
      answeredDead: doomed.answered.length,
      answeredLive: live.answered.length,
      recovered: recovered.length,
      recoveredAnswered: recovered.filter((r) => doomedIds.has(r.id)).length,
      billed: records.length,
    }));
  } finally {
    for (const main of processes) await main.stop();
    await store.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
});
