/**
 * `admin export` / `admin import`: the whole state moves between the backends unchanged (KV →
 * PostgreSQL → KV gives the same lines), through the real CLI, and a key made on KV then
 * works on a gateway running on PostgreSQL with its balance to the cent.
 */
import assert from "node:assert/strict";
import { createKvStore, type KvStore, openKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { exportState, importState } from "../../src/admin/transfer_commands.ts";
import { buildRequestRecord } from "../../src/billing/settle.ts";
import { timeOrderedId } from "../../src/util/ids.ts";
import type { StateTransfer } from "../../src/state/transfer.ts";
import { kvControlPlane } from "../../src/state/kv/control_plane.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { chatBody, REPO_ROOT } from "../helpers/api.ts";
import { closing } from "../helpers/dispose.ts";

const cluster = await startPostgres();

async function seed(store: KvStore) {
  const run = (command: string, flags: Record<string, string>) =>
    runAdminCommand(store, { command: command.split(" "), flags, defaultRpm: 600 }) as Promise<
      Record<string, string>
    >;
  const a = await run("org create", { name: "Alpha", "credits-micro-eur": "5000000" });
  const b = await run("org create", { name: "Beta" });
  await run("credits topup", { org: b.id!, "micro-eur": "777" });
  const key = await run("key create", {
    org: a.id!,
    rpm: "42",
    name: "ci",
    budget: "5000",
    period: "week",
  });
  const gone = await run("key create", { org: b.id! });
  await run("key revoke", { id: gone.id! });
  await store.putOrgPolicy(a.id!, {
    sovereignty: "strict_only",
    blocked_providers: ["sim-b"],
    zdr_only: false,
    allowed_models: null,
    guardrail: "flag",
    guardrail_remote: {
      model: "mistral/mistral-moderation-2603",
      timeout_ms: 300,
      on_error: "closed",
    },
  }, "cli");
  await store.putKeyPolicy(a.id!, key.id!, { guardrail: "block" }, "cli");
  // The dashboard's areas: users, memberships, a ledger grant, audit (in and outside an org),
  // settings.
  const { accounts, control, sso } = kvControlPlane(store.kv);
  const T = "2026-11-20T08:00:00.000Z";
  await accounts.createUser({
    id: "usr_owner",
    email: "owner@example.eu",
    password_hash: "scrypt$17$8$1$c2FsdA$aGFzaA",
    operator: false,
    created: T,
    password_changed_at: T,
  });
  await accounts.createUser({
    id: "usr_ops",
    email: "ops@example.eu",
    password_hash: null,
    operator: true,
    created: T,
    password_changed_at: null,
  });
  await accounts.addMembership({ org: a.id!, user: "usr_owner", role: "owner", created: T });
  await accounts.addMembership({ org: b.id!, user: "usr_owner", role: "viewer", created: T });
  await control.grantCredits({
    id: timeOrderedId("led_", Date.parse(T)),
    org: a.id!,
    created: T,
    amount_micro_eur: 1_000,
    actor: "ops@example.eu",
    note: "pilot",
  });
  await control.appendAudit({
    id: timeOrderedId("aud_", Date.parse(T)),
    created: T,
    org: a.id!,
    actor: "ops@example.eu",
    action: "credits.granted",
    target: a.id!,
    detail: { zeta: 1, amount_micro_eur: 1_000, note: "pilot" },
  });
  await control.appendAudit({
    id: timeOrderedId("aud_", Date.parse(T) + 1),
    created: T,
    org: null,
    actor: "nobody@example.eu",
    action: "login.failed",
    target: null,
    detail: {},
  });
  await control.setOrgSettings(a.id!, {
    low_balance_micro_eur: 5_000,
    rpm_ceiling: null,
    require_2fa: true,
    suspended_at: null,
  });
  // An operator's correction of the grant, a suspended organization, an enabled second factor
  // (a pending one stays behind).
  await control.correctCredits({
    id: timeOrderedId("led_", Date.parse(T) + 1),
    org: a.id!,
    created: T,
    amount_micro_eur: -400,
    actor: "ops@example.eu",
    note: "pilot was 600",
    kind: "correction",
    corrects: timeOrderedId("led_", Date.parse(T)),
  });
  await control.setOrgSuspension(b.id!, T);
  const { twoFactor } = kvControlPlane(store.kv);
  const totp = { secret: "JBSWY3DPEHPK3PXP", created: T, enabled_at: null, last_step: 0 };
  await twoFactor.putPendingTotp({ ...totp, user: "usr_owner", recovery_hashes: [] });
  await twoFactor.enableTotp("usr_owner", totp.secret, T, 58_000_000, ["ab".repeat(32)]);
  await twoFactor.putPendingTotp({ ...totp, user: "usr_ops", recovery_hashes: [] });
  // Single sign-on: a provider, a binding with rules, a linked identity, a managed membership.
  await sso.createProvider({
    id: "kc-acme",
    name: "Acme Keycloak",
    issuer: "https://id.acme.eu/realms/acme",
    client_id: "sovra",
    client_secret_env: "ACME_KC_SECRET",
    scopes: ["openid", "email", "groups"],
    redirect_url: "https://dashboard.acme.eu/sso/callback",
    groups_claim: "groups",
    email_verified_claim: "email_verified",
    created: T,
  });
  await sso.setBinding({
    org: a.id!,
    provider: "kc-acme",
    domains: [{ match: "example.eu", role: "viewer" }],
    groups: [{ match: "/acme/admins", role: "admin" }],
    require_sso: true,
    updated: T,
  });
  await sso.createIdentity({
    issuer: "https://id.acme.eu/realms/acme",
    subject: "f:8d1c:owner",
    provider: "kc-acme",
    user: "usr_owner",
    created: T,
    last_sign_in: T,
  });
  await sso.markManaged({ org: a.id!, user: "usr_owner", provider: "kc-acme" });
  await store.alerts!.putAlertSettings({
    org: a.id!,
    webhook_url: "https://hooks.acme.eu/sovra",
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    balance_below_micro_eur: 1_000_000,
    daily_spend_above_micro_eur: null,
    key_budget_percents: [80, 100],
    email: "billing@acme.eu",
    updated: T,
  });
  await store.routingPolicies!.putRoutingPolicy({
    org: a.id!,
    id: "support",
    name: "Support",
    pool: ["acme/chat", "acme/big"],
    strategy: "auto",
    threshold: 6,
    created: T,
    updated: T,
  });
  const at = Date.UTC(2026, 10, 20, 23, 59, 58);
  for (let i = 0; i < 30; i++) {
    await store.settle(buildRequestRecord({
      id: timeOrderedId("req_", at + i * 1000),
      startedAt: at + i * 1000,
      org: i % 3 === 0 ? b.id! : a.id!,
      keyId: key.id!,
      user: i % 2 ? "u-1" : undefined,
      endpoint: i % 5 === 0 ? "embeddings" : "chat",
      requestedModel: "acme/chat",
      model: {
        pricing: { prompt_micro_eur_per_million: 3_000_000, completion_micro_eur_per_million: 1 },
      } as never,
      servedModel: "acme/chat",
      provider: "sim-a",
      status: 200,
      stream: i % 2 === 0,
      fallbacks: i % 2,
      promptTokens: 10 + i,
      completionTokens: i,
      estimated: i % 4 === 0,
    }, at + i * 1000 + 5));
  }
  return { org: a.id!, key: key.key! };
}

async function dump(store: StateTransfer): Promise<string[]> {
  let text = "";
  await exportState(store, "any", (chunk) => {
    text += chunk;
    return Promise.resolve();
  });
  return text.trim().split("\n").slice(1);
}

Deno.test("export/import — KV → PostgreSQL → KV keeps every line", async () => {
  const kv = createKvStore(await Deno.openKv(":memory:"));
  const pg = await openPgStore(await cluster.database(), { spillPath: undefined });
  const back = createKvStore(await Deno.openKv(":memory:"));
  try {
    await seed(kv);
    const original = await dump(kv);
    const types = new Set(original.map((l) => JSON.parse(l).type));
    assert.deepEqual([...types].sort(), [
      "alert_settings",
      "api_key",
      "audit",
      "credits",
      "key_policy",
      "ledger",
      "membership",
      "org",
      "org_policy",
      "org_settings",
      "policy_audit",
      "request",
      "routing_policy",
      "sso_binding",
      "sso_identity",
      "sso_managed",
      "sso_provider",
      "totp",
      "usage_day",
      "user",
    ]);
    const lines = original.map((l) => JSON.parse(l));
    assert.deepEqual(lines.filter((l) => l.type === "totp").map((l) => l.user), ["usr_owner"]);
    assert.equal(lines.filter((l) => l.kind === "correction").length, 1);
    assert.equal(lines.filter((l) => l.type === "org_settings" && l.suspended_at).length, 1);
    const header = JSON.stringify({
      type: "sovra_export",
      version: 1,
      backend: "kv",
      exported_at: "x",
    });
    const text = [header, ...original].join("\n");
    const result = await importState(pg, text);
    assert.equal(result.imported.request, 30);
    assert.deepEqual(await dump(pg), original);
    await importState(back, [header, ...(await dump(pg))].join("\n"));
    assert.deepEqual(await dump(back), original);
    // Views agree too.
    for (const org of await kv.listOrgs()) {
      assert.deepEqual(await pg.getOrg(org.id), org);
      assert.deepEqual(await pg.listRequests(org.id, 100), await kv.listRequests(org.id, 100));
      assert.deepEqual(
        await pg.dailyUsage(org.id, "2026-11-21"),
        await kv.dailyUsage(org.id, "2026-11-21"),
      );
    }
    // Into a store that is not empty: refused, nothing written twice.
    await assert.rejects(() => importState(pg, text), /empty/);
    assert.deepEqual(await dump(pg), original);
  } finally {
    await kv.close();
    await pg.close();
    await back.close();
  }
});

Deno.test("export/import — a malformed line is refused with its number before anything is written", async () => {
  await using pg = closing(await openPgStore(await cluster.database(), { spillPath: undefined }));
  const header = JSON.stringify({
    type: "sovra_export",
    version: 1,
    backend: "kv",
    exported_at: "x",
  });
  const org = JSON.stringify({
    type: "org",
    id: "org_a",
    name: "A",
    created: new Date().toISOString(),
  });
  const bad = JSON.stringify({
    type: "credits",
    org: "org_a",
    granted_micro_eur: -5,
    spent_micro_eur: 0,
  });
  await assert.rejects(
    () => importState(pg, [header, org, bad].join("\n")),
    /Line 3: granted_micro_eur/,
  );
  await assert.rejects(() => importState(pg, org), /header/);
  assert.equal(await pg.isEmpty(), true);
});

Deno.test("export/import — through the CLI, a KV key then works on a PostgreSQL gateway to the cent", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-transfer-" });
  const kvPath = `${dir}/sovra.kv`;
  const url = await cluster.database();
  const kv = await openKvStore(kvPath);
  const { org, key } = await seed(kv);
  const before = await kv.getOrg(org);
  await kv.close();
  const cli = (env: Record<string, string>, args: string[], stdin?: Uint8Array) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/admin.ts", ...args],
      cwd: REPO_ROOT,
      env: { NO_COLOR: "1", ...env },
      stdin: stdin ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (stdin) {
      const writer = child.stdin.getWriter();
      void writer.write(stdin).then(() => writer.close());
    }
    return child.output();
  };
  const exported = await cli({ SOVRA_KV: kvPath }, ["export"]);
  assert.equal(exported.code, 0, new TextDecoder().decode(exported.stderr));
  const imported = await cli({ SOVRA_DATABASE_URL: url }, ["import"], exported.stdout);
  assert.equal(imported.code, 0, new TextDecoder().decode(imported.stderr));
  const summary = JSON.parse(new TextDecoder().decode(imported.stdout));
  assert.deepEqual(summary.imported, {
    org: 2,
    credits: 2,
    api_key: 2,
    request: 30,
    usage_day: 4,
    org_policy: 1,
    key_policy: 1,
    policy_audit: 2,
    user: 2,
    membership: 2,
    ledger: 2,
    audit: 2,
    org_settings: 2,
    routing_policy: 1,
    sso_provider: 1,
    sso_binding: 1,
    sso_identity: 1,
    sso_managed: 1,
    totp: 1,
    alert_settings: 1,
  });

  const h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    env: { SOVRA_DATABASE_URL: url, SOVRA_SPILL_PATH: `${dir}/spill.jsonl` },
  });
  try {
    assert.deepEqual(await h.store.getOrg(org), before);
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(chatBody("acme/chat")),
    });
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
    await h.flushed();
    const [latest] = await h.store.listRequests(org, 1);
    const after = await h.store.getOrg(org);
    assert.equal(after!.balance_micro_eur, before!.balance_micro_eur - latest!.cost_micro_eur);
    // The imported routing policy routes on PostgreSQL: `router/support` is served from its pool
    // (its second model is not in this catalog and is skipped).
    const routed = await fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(chatBody("router/support")),
    });
    assert.equal(routed.status, 200, await routed.clone().text());
    assert.equal(routed.headers.get("x-sovra-routed-model"), "acme/chat");
    assert.equal(routed.headers.get("x-sovra-routing-policy"), "support");
    await routed.body?.cancel();
  } finally {
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("postgres cluster teardown (transfer)", async () => {
  await cluster.stop();
});
