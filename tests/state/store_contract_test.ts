/**
 * The `Store` contract, run against both backends (Deno KV in memory, PostgreSQL on a
 * throwaway cluster): every method, 1,000 concurrent debits and rate increments landing
 * exactly, retention. A fresh store (KV handle / database) per case.
 */
import { budgetPeriodIds } from "../../src/util/budget_period.ts";
import assert from "node:assert/strict";
import type { Store } from "../../src/state/store.ts";
import { createKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { buildRequestRecord } from "../../src/billing/settle.ts";
import { REQUEST_RECORD_FIELDS } from "../../src/state/records.ts";
import { runRetentionCleanup } from "../../src/state/retention.ts";
import { minuteOf } from "../../src/state/minute.ts";
import { timeOrderedId } from "../../src/util/ids.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";
import { closing } from "../helpers/dispose.ts";

/** Disposing a backend stops what it started. */
interface Backend extends AsyncDisposable {
  name: string;
  /** Opens a fresh, empty store. */
  open(): Promise<Store>;
}

function kvBackend(): Promise<Backend> {
  return Promise.resolve({
    name: "kv",
    open: async () => createKvStore(await Deno.openKv(":memory:"), 2),
    [Symbol.asyncDispose]: async () => {},
  });
}

async function pgBackend(): Promise<Backend> {
  const cluster: PgCluster = await startPostgres();
  const dir = await Deno.makeTempDir({ prefix: "sovra-spill-" });
  return {
    name: "postgres",
    open: async () =>
      openPgStore(await cluster.database(), {
        commitIntervalMs: 2,
        spillPath: `${dir}/${crypto.randomUUID()}.jsonl`,
      }),
    [Symbol.asyncDispose]: async () => {
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

function request(
  org: string,
  at: number,
  extra: Partial<Parameters<typeof buildRequestRecord>[0]> = {},
) {
  return buildRequestRecord({
    id: timeOrderedId("req_", at),
    startedAt: at,
    org,
    keyId: "key_a",
    user: "end-user-1",
    endpoint: "chat",
    requestedModel: "acme/chat",
    model: {
      pricing: { prompt_micro_eur_per_million: 2_000_000, completion_micro_eur_per_million: 0 },
    } as never,
    servedModel: "acme/chat",
    provider: "sim-a",
    status: 200,
    stream: false,
    fallbacks: 0,
    promptTokens: 7,
    completionTokens: 3,
    estimated: false,
    ...extra,
  }, at + 12);
}

const org = (id: string, at = T0) => ({
  id,
  name: `Org ${id}`,
  created: new Date(at).toISOString(),
});

const cases: Array<[string, (store: Store) => Promise<void>]> = [
  ["policies: org and key policies replaced whole, audited newest first", async (store) => {
    assert.equal(await store.getOrgPolicy("org_p"), undefined);
    const policy = {
      sovereignty: "strict_only" as const,
      blocked_providers: ["sim-b"],
      zdr_only: true,
      allowed_models: ["acme/chat"],
      guardrail: "block" as const,
    };
    const first = await store.putOrgPolicy("org_p", policy, "cli");
    assert.deepEqual(first.before, null);
    assert.deepEqual(await store.getOrgPolicy("org_p"), policy);
    const looser = { ...policy, blocked_providers: [], allowed_models: null };
    const second = await store.putOrgPolicy("org_p", looser, "dashboard:u1");
    assert.deepEqual(second.before, policy);
    assert.deepEqual(await store.getOrgPolicy("org_p"), looser);
    assert.equal(await store.getKeyPolicy("key_p"), undefined);
    await store.putKeyPolicy("org_p", "key_p", { guardrail: "flag", zdr_only: true }, "cli");
    assert.deepEqual(await store.getKeyPolicy("key_p"), { guardrail: "flag", zdr_only: true });
    const removed = await store.putKeyPolicy("org_p", "key_p", null, "cli");
    assert.deepEqual(removed.after, null);
    assert.equal(await store.getKeyPolicy("key_p"), undefined);
    const audit = await store.listPolicyAudit("org_p", 10);
    assert.deepEqual(audit.map((e) => [e.actor, e.key_id]), [
      ["cli", "key_p"],
      ["cli", "key_p"],
      ["dashboard:u1", null],
      ["cli", null],
    ]);
    assert.equal((await store.listPolicyAudit("org_p", 1)).length, 1);
    assert.deepEqual(await store.listPolicyAudit("org_other", 10), []);
  }],
  ["organizations: create, duplicate refused, get, list in id order, top-up", async (store) => {
    const created = await store.createOrg(org("org_b"), 500n);
    assert.deepEqual(created, {
      ...org("org_b"),
      balance_micro_eur: 500,
      granted_micro_eur: 500,
      spent_micro_eur: 0,
    });
    await assert.rejects(() => store.createOrg(org("org_b"), 1n), /already exists/);
    await store.createOrg(org("org_a"), 0n);
    assert.equal(await store.getOrg("org_missing"), undefined);
    assert.deepEqual((await store.listOrgs()).map((o) => o.id), ["org_a", "org_b"]);
    assert.equal(await store.topUp("org_b", 250n), 750n);
    assert.equal((await store.getOrg("org_b"))?.balance_micro_eur, 750);
    assert.equal((await store.getOrg("org_b"))?.granted_micro_eur, 750);
  }],
  ["API keys: stored by hash, collisions refused, listed per org, revoked once", async (store) => {
    await store.createOrg(org("org_a"), 0n);
    const key = {
      id: "key_1",
      org: "org_a",
      name: "ci",
      rpm: 60,
      hash: "ab".repeat(32),
      prefix: "sk-ex-abcd",
    };
    const record = await store.createApiKey(key);
    assert.equal(record.revoked, false);
    assert.equal(record.revoked_at, null);
    await assert.rejects(() => store.createApiKey({ ...key, id: "key_2" }), /collides/);
    await assert.rejects(() => store.createApiKey({ ...key, hash: "cd".repeat(32) }), /collides/);
    await store.createApiKey({ ...key, id: "key_0", hash: "ef".repeat(32), name: null });
    assert.deepEqual(await store.findApiKeyByHash("ab".repeat(32)), record);
    assert.equal(await store.findApiKeyByHash("00".repeat(32)), undefined);
    assert.deepEqual((await store.listApiKeys("org_a")).map((k) => k.id), ["key_0", "key_1"]);
    assert.deepEqual(await store.listApiKeys("org_other"), []);
    const revoked = await store.revokeApiKey("key_1");
    assert.equal(revoked?.revoked, true);
    assert.ok(revoked?.revoked_at);
    const again = await store.revokeApiKey("key_1");
    assert.equal(again?.revoked_at, revoked?.revoked_at);
    assert.equal((await store.findApiKeyByHash("ab".repeat(32)))?.revoked, true);
    assert.equal(await store.revokeApiKey("key_missing"), undefined);
  }],
  ["settle: metadata newest first, debit, daily aggregates, onSent", async (store) => {
    await store.createOrg(org("org_a"), 1_000n);
    const first = request("org_a", T0);
    const second = request("org_a", T0 + 1_000, { completionTokens: 5, estimated: true });
    const audio = request("org_a", T0 + 2_000, {
      endpoint: "transcriptions",
      promptTokens: undefined,
      completionTokens: undefined,
      audioSeconds: 42,
      model: undefined,
    });
    let sent = 0;
    await store.settle(first, () => sent++);
    await store.settle(second, () => sent++);
    await store.settle(audio);
    assert.equal(sent, 2);
    assert.equal(first.cost_micro_eur, 14);
    assert.deepEqual(await store.listRequests("org_a", 10), [audio, second, first]);
    assert.deepEqual(await store.listRequests("org_a", 1), [audio]);
    assert.deepEqual(await store.listRequests("org_b", 10), []);
    assert.equal((await store.getOrg("org_a"))?.balance_micro_eur, 1_000 - 28);
    assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, 28);
    assert.deepEqual(await store.dailyUsage("org_a", "2026-11-21"), {
      requests: 3,
      cost_micro_eur: 28,
      prompt_tokens: 14,
      completion_tokens: 8,
      audio_seconds: 42,
    });
    assert.deepEqual(await store.dailyUsage("org_a", "2026-11-22"), {});
  }],
  ["settle: the prompt cache's classes in the row and the day's aggregates", async (store) => {
    await store.createOrg(org("org_a"), 1_000_000n);
    const priced = {
      pricing: {
        prompt_micro_eur_per_million: 1_000_000,
        completion_micro_eur_per_million: 0,
        cached_prompt_micro_eur_per_million: 100_000,
        cache_write_micro_eur_per_million: 1_250_000,
        cache_write_1h_micro_eur_per_million: 2_000_000,
      },
    } as never;
    // A read: 1,000 prompt tokens, 800 from the cache → 200 + 80 = 280 (list 1,000).
    const read = request("org_a", T0, {
      model: priced,
      promptTokens: 1_000,
      cachedPromptTokens: 800,
    });
    // A write: 1,000 prompt tokens, 800 written (200 for 1 h) → 200 + 750 + 400 = 1,350.
    const write = request("org_a", T0 + 1, {
      model: priced,
      promptTokens: 1_000,
      cacheWritePromptTokens: 800,
      cacheWrite1hPromptTokens: 200,
    });
    const none = request("org_a", T0 + 2);
    assert.equal(read.cost_micro_eur, 280);
    assert.equal(read.cache_savings_micro_eur, 720);
    assert.equal(write.cost_micro_eur, 1_350);
    assert.equal(write.cache_savings_micro_eur, -350);
    assert.equal(none.cached_tokens, null);
    for (const r of [read, write, none]) await store.settle(r);
    assert.deepEqual(await store.listRequests("org_a", 3), [none, write, read]);
    const day = await store.dailyUsage("org_a", "2026-11-21");
    assert.equal(day.cached_tokens, 800);
    assert.equal(day.cache_write_tokens, 800);
    assert.equal(day.cache_savings_micro_eur, 720);
    assert.equal(day.cache_surcharge_micro_eur, 350);
    assert.equal(day.cost_micro_eur, 280 + 1_350 + none.cost_micro_eur);
  }],
  ["gate: this minute's and last minute's buckets, balance, onSent", async (store) => {
    await store.createOrg(org("org_a"), 100n);
    const minute = minuteOf(T0);
    let sent = 0;
    await store.countRequest("key_a", minute - 1, () => sent++);
    await store.countRequest("key_a", minute);
    await store.countRequest("key_a", minute);
    await store.countRequest("key_b", minute);
    assert.equal(sent, 1);
    assert.deepEqual(await store.readGate("key_a", "org_a", minute), {
      rateCurrent: 2,
      ratePrevious: 1,
      balanceMicroEur: 100n,
      keySpentMicroEur: 0n,
    });
    assert.deepEqual(await store.readGate("key_c", "org_none", minute, "m:2026-11"), {
      rateCurrent: 0,
      ratePrevious: 0,
      balanceMicroEur: 0n,
      keySpentMicroEur: 0n,
    });
  }],
  ["1,000 concurrent debits and rate increments land exactly", async (store) => {
    await store.createOrg(org("org_a"), 10_000_000n);
    const minute = minuteOf(T0);
    const records = Array.from(
      { length: 1_000 },
      (_, i) => request("org_a", T0 + i, { promptTokens: i + 1, completionTokens: 0 }),
    );
    await Promise.all([
      ...records.map((r) => store.settle(r)),
      ...records.map(() => store.countRequest("key_a", minute)),
    ]);
    const expected = records.reduce((sum, r) => sum + r.cost_micro_eur, 0);
    assert.equal(expected, 1_001_000);
    const view = await store.getOrg("org_a");
    assert.equal(view?.spent_micro_eur, expected);
    assert.equal(view?.balance_micro_eur, 10_000_000 - expected);
    assert.equal((await store.readGate("key_a", "org_a", minute)).rateCurrent, 1_000);
    const usage = await store.dailyUsage("org_a", "2026-11-21");
    assert.equal(usage.requests, 1_000);
    assert.equal(usage.cost_micro_eur, expected);
    // The key's spend in each budget period (the ids as the gate computes them, UTC).
    const keyId = records[0]!.key_id;
    const periods = budgetPeriodIds(records[0]!.created);
    assert.deepEqual(periods, ["d:2026-11-21", "w:2026-11-16", "m:2026-11", "t"]);
    for (const period of periods) {
      assert.equal(await store.readKeySpend(keyId, period), BigInt(expected), period);
    }
    assert.equal(await store.readKeySpend(keyId, "d:2026-11-20"), 0n);
    const gate = await store.readGate(keyId, "org_a", minute, "w:2026-11-16");
    assert.equal(gate.keySpentMicroEur, BigInt(expected));
    assert.equal(usage.prompt_tokens, 500_500);
    assert.equal((await store.listRequests("org_a", 1_000)).length, 1_000);
  }],
  ["retention: metadata past the period and old buckets go, the rest stays", async (store) => {
    await store.createOrg(org("org_a"), 0n);
    const now = T0;
    const old = request("org_a", now - 31 * 86_400_000);
    const recent = request("org_a", now - 29 * 86_400_000);
    await store.settle(old);
    await store.settle(recent);
    await store.countRequest("key_a", minuteOf(now) - 10);
    await store.countRequest("key_a", minuteOf(now));
    assert.deepEqual(await runRetentionCleanup(store, 30, now), { requests: 1, rateBuckets: 1 });
    assert.deepEqual(await store.listRequests("org_a", 10), [recent]);
    assert.equal((await store.readGate("key_a", "org_a", minuteOf(now))).rateCurrent, 1);
    // Spent credit is not metadata: it stays.
    assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, 28);
    assert.deepEqual(await runRetentionCleanup(store, 30, now), { requests: 0, rateBuckets: 0 });
  }],
  [
    "admissions: written with the rate increment, closed by the settle, a dead instance's settled once",
    async (store) => {
      await store.createOrg(org("org_a"), 1_000n);
      const minute = minuteOf(T0);
      const estimate = (at: number) => ({
        ...request("org_a", at, { status: 0, estimated: true, completionTokens: undefined }),
        recovered: true as const,
      });
      const settledLive = request("org_a", T0 + 1);
      const dead = [estimate(T0 + 2), estimate(T0 + 3)];
      const alive = estimate(T0 + 4);
      await store.countRequest("key_a", minute, undefined, {
        instance: "inst_live",
        record: { ...settledLive, status: 0 },
      });
      await store.settle(settledLive); // deletes its admission record
      for (const record of dead) {
        await store.countRequest("key_a", minute, undefined, { instance: "inst_dead", record });
      }
      await store.countRequest("key_a", minute, undefined, {
        instance: "inst_live",
        record: alive,
      });
      // Admission and settle in one group commit: nothing stays open.
      const together = request("org_a", T0 + 5);
      await Promise.all([
        store.countRequest("key_a", minute, undefined, { instance: "inst_live", record: together }),
        store.settle(together),
      ]);
      assert.equal((await store.readGate("key_a", "org_a", minute)).rateCurrent, 5);
      await store.renewLease("inst_live", T0 + 60_000);
      await store.renewLease("inst_dead", T0 - 1);
      // Two instances recovering at once settle each record once; never their own.
      const counts = await Promise.all([
        store.recoverAdmissions("inst_live", T0),
        store.recoverAdmissions("inst_other", T0),
      ]);
      assert.equal(counts[0] + counts[1], 2);
      assert.equal(await store.recoverAdmissions("inst_other", T0), 0);
      const rows = await store.listRequests("org_a", 10);
      assert.deepEqual(
        rows.map((r) => r.id).sort(),
        [settledLive, ...dead, together].map((r) => r.id).sort(),
      );
      for (const r of rows.filter((r) => r.recovered)) {
        assert.deepEqual(r, dead.find((d) => d.id === r.id));
      }
      const spent = settledLive.cost_micro_eur + together.cost_micro_eur +
        dead.reduce((sum, r) => sum + r.cost_micro_eur, 0);
      assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, spent);
      // The live instance's admission goes once its lease has ended.
      assert.equal(await store.recoverAdmissions("inst_other", T0 + 60_001), 1);
      assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, spent + alive.cost_micro_eur);
    },
  ],
  [
    "admissions: a recovered record keeps every field its admission record carried",
    async (store) => {
      await store.createOrg(org("org_a"), 1_000n);
      const full = {
        ...request("org_a", T0 + 7, {
          status: 0,
          estimated: true,
          stream: true,
          fallbacks: 1,
          completionTokens: undefined,
          totalTokens: 9,
          audioSeconds: 4,
          characters: 11,
          cachedPromptTokens: 3,
          cacheWritePromptTokens: 2,
          cacheWrite1hPromptTokens: 1,
          routingPolicy: "rp_cheap",
          guardrail: {
            mode: "flag",
            verdict: "flag",
            rule: "PI-OVR-DE-01",
            at: "messages[0]",
            score: 0.75,
            would_block: true,
            coverage: "full",
            version: "2026.11",
          },
        }),
        recovered: true as const,
      };
      // A field the fixture leaves out could be dropped by the store unnoticed: none is.
      const optional = ["guardrail", "routing_policy", "recovered"] as const;
      for (const field of [...REQUEST_RECORD_FIELDS, ...optional]) {
        assert.notEqual(full[field], undefined, field);
        if (field !== "completion_tokens") assert.notEqual(full[field], null, field);
      }
      await store.countRequest("key_a", minuteOf(T0), undefined, {
        instance: "inst_dead",
        record: full,
      });
      await store.renewLease("inst_dead", T0 - 1);
      assert.equal(await store.recoverAdmissions("inst_live", T0), 1);
      assert.deepEqual(await store.listRequests("org_a", 10), [full]);
      assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, full.cost_micro_eur);
    },
  ],
  [
    "admissions: a settle takes its queued admission record's place in the same write, once",
    async (store) => {
      await store.createOrg(org("org_a"), 1_000_000n);
      const minute = minuteOf(T0);
      const real = request("org_a", T0 + 10, { promptTokens: 9, completionTokens: 40 });
      const estimate = { ...real, status: 0, estimated: true, recovered: true as const };
      const sent: string[] = [];
      // Deferred: queued for the interval, so the settle comes before a commit takes it.
      const admitted = store.countRequest("key_a", minute, () => sent.push("rate"), {
        instance: "inst_dead",
        record: estimate,
      }, true);
      const settle = store.settleAdmitted!(real, () => sent.push("debit"));
      assert.ok(settle, "the admission was still queued");
      await Promise.all([settle.written, settle.answerable, admitted]);
      assert.deepEqual(sent.sort(), ["debit", "rate"], "both told once the write is in");
      assert.equal((await store.readGate("key_a", "org_a", minute)).rateCurrent, 1);
      assert.deepEqual(await store.listRequests("org_a", 10), [real]);
      assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, real.cost_micro_eur);
      // No admission record was written: its instance's death bills nothing from an estimate.
      await store.renewLease("inst_dead", T0 - 1);
      assert.equal(await store.recoverAdmissions("inst_live", T0 + 120_000), 0);
      assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, real.cost_micro_eur);
      // Once a commit took the admission, the settle is written on its own (undefined here).
      const next = request("org_a", T0 + 11);
      const urgent = store.countRequest("key_a", minute, undefined, {
        instance: "inst_live",
        record: { ...next, status: 0, recovered: true },
      });
      await urgent;
      assert.equal(store.settleAdmitted!(next, () => {}), undefined);
      await store.settle(next);
      await store.flushed();
      const usage = await store.dailyUsage("org_a", new Date(T0).toISOString().slice(0, 10));
      assert.equal(usage.requests, 2);
      assert.equal(usage.cost_micro_eur, real.cost_micro_eur + next.cost_micro_eur);
      assert.equal((await store.readGate("key_a", "org_a", minute)).rateCurrent, 2);
    },
  ],
  [
    "admissions: a real settle after a recovery replaces the estimate once, by request id",
    async (store) => {
      await store.createOrg(org("org_a"), 1_000_000n);
      const day = new Date(T0).toISOString().slice(0, 10);
      // A live instance taken for dead (its lease ran out, an outage): its request is billed
      // from its admission record first, then its real settle arrives.
      const estimate = {
        ...request("org_a", T0 + 8, {
          status: 0,
          estimated: true,
          completionTokens: undefined,
          totalTokens: 7,
        }),
        recovered: true as const,
      };
      const real = request("org_a", T0 + 8, {
        id: estimate.id,
        promptTokens: 9,
        completionTokens: 40,
      });
      assert.notEqual(real.cost_micro_eur, estimate.cost_micro_eur);
      // A second request billed normally, beside it.
      const other = request("org_a", T0 + 9);
      await store.countRequest("key_a", minuteOf(T0), undefined, {
        instance: "inst_stalled",
        record: estimate,
      });
      await store.renewLease("inst_stalled", T0 - 1);
      assert.equal(await store.recoverAdmissions("inst_live", T0), 1);
      assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, estimate.cost_micro_eur);
      // The real settle, then a replay of it (a spill file, a lost acknowledgement).
      await Promise.all([store.settle(real), store.settle(other)]);
      await store.settle(real);
      await store.flushed();
      const rows = await store.listRequests("org_a", 10);
      assert.deepEqual(rows.find((r) => r.id === real.id), real, "the client's status and usage");
      assert.equal(rows.length, 2);
      const spent = real.cost_micro_eur + other.cost_micro_eur;
      assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, spent);
      const usage = await store.dailyUsage("org_a", day);
      assert.equal(usage.requests, 2);
      assert.equal(usage.cost_micro_eur, spent);
      assert.equal(usage.prompt_tokens, 9 + 7);
      assert.equal(usage.completion_tokens, 40 + 3);
      // A recovery pass that comes after the real settle bills nothing.
      assert.equal(await store.recoverAdmissions("inst_live", T0 + 120_000), 0);
      assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, spent);
    },
  ],
];

for (const [name, make] of [["kv", kvBackend], ["postgres", pgBackend]] as const) {
  Deno.test(`Store contract — ${name}`, async (t) => {
    await using backend = await make();
    for (const [name, run] of cases) {
      await t.step(`${backend.name}: ${name}`, async () => {
        await using store = closing(await backend.open());
        await run(store);
      });
    }
  });
}
