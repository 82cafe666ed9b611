/**
 * Three gateway processes (`main.ts`, as an operator runs them) on one PostgreSQL database: load
 * spread across all three is debited exactly, a key created beside them works on each at once, a
 * revocation reaches each (by notice, well before their 30 s key cache expires), a key created on
 * one's dashboard works on the others and a dashboard session of one works on another, an
 * organization's policy is enforced by all, the rate limit is shared. Then the cross-instance bounds of the
 * README ("Running a fleet") are measured on a burst: how far a key exceeds its RPM and how far
 * an organization overdraws, against the formulas' worst case.
 */
import assert from "node:assert/strict";
import { chatModel, SIM_KEY, writeCatalog } from "../helpers/harness.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { logRecord, type MainProcess, startMain } from "../contract/process_support.ts";
import { chatBody } from "../helpers/api.ts";
import { openPgStore, type PgStore } from "../../src/state/postgres/pg_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { minuteOf } from "../../src/state/minute.ts";
import { ApiClient, PASSWORD } from "../dashboard/support.ts";
import { hashPassword } from "../../src/dashboard/passwords.ts";

const INSTANCES = 3;
const REFRESH_MS = 1_000;
/** The longest allowed: a revocation seen sooner came by notice (LISTEN/NOTIFY). */
const KEY_CACHE_SECONDS = 30;

async function admin(store: PgStore, command: string, flags: Record<string, string>) {
  return await runAdminCommand(store, {
    command: command.split(" "),
    flags,
    defaultRpm: 600,
  }) as Record<string, string | number>;
}

function chat(url: string, key: string): Promise<number> {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(chatBody("acme/chat")),
  }).then(async (res) => {
    await res.body?.cancel();
    return res.status;
  });
}

/** `count` requests spread round-robin over `urls`, `perInstance` in flight on each. */
async function spread(urls: string[], key: string, count: number, perInstance: number) {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(urls.flatMap((url) =>
    Array.from({ length: perInstance }, async () => {
      while (next < count) {
        next++;
        statuses.push(await chat(url, key));
      }
    })
  ));
  return statuses;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  seconds = 30,
): Promise<T> {
  // A liveness bound, not a timing assert.
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits for the next minute when fewer than 20 s of this one are left. */
async function awayFromMinuteEnd(): Promise<void> {
  const second = (Date.now() % 60_000) / 1000;
  if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

Deno.test("postgres fleet — three gateway processes on one database", async (t) => {
  const cluster = await startPostgres();
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-fleet-" });
  const url = await cluster.database();
  await writeCatalog(
    dir,
    { "sim-a": { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" } },
    [{ sovereignty: "strict", ...chatModel("acme/chat", "sim-chat") }],
  );
  const store = await openPgStore(url, { spillPath: undefined });
  const processes: MainProcess[] = [];
  try {
    const urls: string[] = [];
    const dashboards: string[] = [];
    for (let i = 0; i < INSTANCES; i++) {
      const main = startMain({
        SOVRA_PORT: "0",
        SOVRA_CATALOG: dir,
        SOVRA_DATABASE_URL: url,
        SOVRA_SPILL_PATH: `${dir}/spill-${i}.jsonl`,
        SOVRA_GATE_REFRESH_MS: String(REFRESH_MS),
        SOVRA_KEY_CACHE_SECONDS: String(KEY_CACHE_SECONDS),
        SOVRA_DASHBOARD_SECURE_COOKIE: "false",
        SOVRA_PASSWORD_SCRYPT_LOG_N: "10",
        SIM_KEY,
      });
      processes.push(main);
      const line = logRecord(await main.waitForLine((l) => l.includes("sovra listening")));
      urls.push(String(line.url));
      const dash = logRecord(await main.waitForLine((l) => l.includes("dashboard listening")));
      dashboards.push(String(dash.url));
    }
    const [a, ...others] = urls as [string, ...string[]];

    await t.step("load over all is debited exactly; a new key works on each at once", async () => {
      const org = await admin(store, "org create", {
        name: "Fleet",
        "credits-micro-eur": "100000000",
      });
      const key = await admin(store, "key create", { org: String(org.id), rpm: "100000" });
      const statuses = await spread(urls, String(key.key), 300, 4);
      assert.deepEqual(statuses.filter((s) => s !== 200), []);
      const rows = await until("300 request rows", async () => {
        const rows = await store.listRequests(String(org.id), 1000);
        return rows.length >= 300 ? rows : undefined;
      });
      assert.equal(rows.length, 300);
      const cost = rows.reduce((sum, r) => sum + r.cost_micro_eur, 0);
      assert.ok(rows.every((r) => r.cost_micro_eur > 0));
      const view = await store.getOrg(String(org.id));
      assert.equal(view?.spent_micro_eur, cost);
      assert.equal(view?.balance_micro_eur, 100_000_000 - cost);
    });

    await t.step(
      "a revocation reaches every instance by notice, before its cache expires",
      async () => {
        const org = await admin(store, "org create", {
          name: "Rev",
          "credits-micro-eur": "1000000",
        });
        const key = await admin(store, "key create", { org: String(org.id) });
        for (const instance of urls) assert.equal(await chat(instance, String(key.key)), 200);
        // Every instance has the key cached for 30 s; the admin CLI's revocation notifies them.
        await admin(store, "key revoke", { id: String(key.id) });
        for (const instance of urls) {
          await until(
            "401 after revocation",
            async () => (await chat(instance, String(key.key))) === 401 ? true : undefined,
            KEY_CACHE_SECONDS / 3,
          );
        }
      },
    );

    await t.step(
      "a key created on one instance's dashboard works on the others; revoked on another's, refused on all",
      async () => {
        const org = await admin(store, "org create", {
          name: "Dash",
          "credits-micro-eur": "1000000",
        });
        const user = "usr_fleet_owner";
        await store.controlPlane.accounts.createUser({
          id: user,
          email: "owner@fleet.example.eu",
          password_hash: await hashPassword(PASSWORD, 10),
          operator: false,
          created: new Date().toISOString(),
          password_changed_at: null,
        });
        await store.controlPlane.accounts.addMembership({
          org: String(org.id),
          user,
          role: "owner",
          created: new Date().toISOString(),
        });
        const [first, second] = dashboards as [string, string];
        const onFirst = await ApiClient.signedIn(first, "owner@fleet.example.eu");
        const created = await onFirst.post(`/api/orgs/${org.id}/keys`, { name: "fleet", rpm: 60 });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        for (const instance of others) assert.equal(await chat(instance, created.body.key), 200);
        assert.equal(await chat(a, created.body.key), 200);

        // Sessions live in the database: the first instance's session works on the second.
        const onSecond = new ApiClient(second);
        onSecond.cookie = onFirst.cookie;
        const revoked = await onSecond.post(`/api/orgs/${org.id}/keys/${created.body.id}/revoke`);
        assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
        for (const instance of urls) {
          await until(
            "401 after revocation",
            async () => (await chat(instance, created.body.key)) === 401 ? true : undefined,
            KEY_CACHE_SECONDS / 3,
          );
        }
      },
    );

    await t.step("an organization's policy set once is enforced by every instance", async () => {
      const org = await admin(store, "org create", { name: "Pol", "credits-micro-eur": "1000000" });
      const key = await admin(store, "key create", { org: String(org.id) });
      await store.putOrgPolicy(String(org.id), {
        sovereignty: "strict_only",
        blocked_providers: [],
        zdr_only: false,
        allowed_models: ["acme/other"],
        guardrail: "off",
      }, "test");
      for (const instance of urls) assert.equal(await chat(instance, String(key.key)), 403);
    });

    await t.step(
      "the rate limit is shared: a key used up on one is refused on the others",
      async () => {
        // Well inside one minute, so the two-bucket weighting cannot let a request through.
        await awayFromMinuteEnd();
        const org = await admin(store, "org create", {
          name: "Rate",
          "credits-micro-eur": "1000000",
        });
        const key = await admin(store, "key create", { org: String(org.id), rpm: "5" });
        for (let i = 0; i < 5; i++) assert.equal(await chat(a, String(key.key)), 200);
        assert.equal(await chat(a, String(key.key)), 429);
        const minute = minuteOf(Date.now());
        await until(
          "A's counts committed",
          async () =>
            (await store.readGate(String(key.id), String(org.id), minute)).rateCurrent >= 5
              ? true
              : undefined,
        );
        // The others' first look at this key reads the shared bucket.
        for (const instance of others) assert.equal(await chat(instance, String(key.key)), 429);
      },
    );

    await t.step(
      "measured bounds: RPM overshoot ≤ (N−1)·rpm, overdraw ≤ (N−1)·balance + N·c·m",
      async () => {
        const rpm = 20;
        const org = await admin(store, "org create", {
          name: "Burst",
          "credits-micro-eur": "100000000",
        });
        const key = await admin(store, "key create", { org: String(org.id), rpm: String(rpm) });
        // Inside one minute (a burst across the boundary also has last minute's bucket), and
        // more than N·rpm, so a limiter that shares nothing would fail the upper bound.
        await awayFromMinuteEnd();
        const burst = await spread(urls, String(key.key), (INSTANCES + 2) * rpm, 15);
        const admitted = burst.filter((s) => s === 200).length;
        assert.deepEqual(burst.filter((s) => s !== 200 && s !== 429), []);
        assert.ok(admitted >= rpm && admitted <= INSTANCES * rpm, `admitted ${admitted}`);

        // The newest billed row (refused requests leave zero-cost rows too).
        const costRows = await store.listRequests(String(org.id), 1000);
        const m = costRows.find((r) => r.cost_micro_eur > 0)?.cost_micro_eur ?? 0;
        assert.ok(m > 0);
        const credits = 3 * m;
        const poor = await admin(store, "org create", {
          name: "Overdraw",
          "credits-micro-eur": String(credits),
        });
        const poorKey = await admin(store, "key create", { org: String(poor.id), rpm: "100000" });
        const inFlight = 4;
        const statuses = await spread(urls, String(poorKey.key), 80, inFlight);
        assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 402), []);
        const served = statuses.filter((s) => s === 200).length;
        const rows = await until("settled rows", async () => {
          const rows = await store.listRequests(String(poor.id), 1000);
          return rows.filter((r) => r.status === 200).length >= served ? rows : undefined;
        });
        const spent = rows.reduce((sum, r) => sum + r.cost_micro_eur, 0);
        const overdraw = Math.max(0, spent - credits);
        const bound = (INSTANCES - 1) * credits + INSTANCES * inFlight * m;
        assert.ok(overdraw <= bound, `overdraw ${overdraw} > bound ${bound}`);
        console.log(JSON.stringify({
          measured: "fleet bounds",
          instances: INSTANCES,
          refresh_ms: REFRESH_MS,
          rpm,
          burst: burst.length,
          admitted,
          rpm_overshoot: admitted - rpm,
          rpm_overshoot_bound: (INSTANCES - 1) * rpm,
          credits_micro_eur: credits,
          cost_per_request_micro_eur: m,
          in_flight_per_instance: inFlight,
          served,
          overdraw_micro_eur: overdraw,
          overdraw_bound_micro_eur: bound,
        }));
      },
    );
  } finally {
    for (const p of processes) await p.stop();
    await store.close();
    await sim.close();
    await cluster.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
