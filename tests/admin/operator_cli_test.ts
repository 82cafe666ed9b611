/**
 * The operator's containment commands of the admin CLI, as real subprocesses on the gateway's
 * KV file: `org suspend|restore`, `credits correct --micro-eur -N --reason`, `key revoke` (any
 * organization's key, audited), `user remove-2fa`; what they do is seen through the gateway and
 * the dashboard's store.
 */
import assert from "node:assert/strict";
import { runAdminCli } from "../helpers/api.ts";
import { ApiClient, MODEL, startDashboardHarness } from "../dashboard/support.ts";

async function cli(kvPath: string, args: string[]) {
  const out = await runAdminCli(kvPath, args);
  return { ...out, json: out.stdout.trim() ? JSON.parse(out.stdout) : null };
}

async function statusUntil(url: string, key: string, want: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Hi" }] }),
    });
    await res.body?.cancel();
    if (res.status === want || Date.now() > deadline) return res.status;
    await new Promise((r) => setTimeout(r, 100));
  }
}

Deno.test("admin CLI — org suspend and restore: the gateway refuses, then serves the org's keys", async () => {
  await using d = await startDashboardHarness({ keyCacheSeconds: 1 });
  await d.h.flushed();
  const suspended = await cli(d.h.kvPath, [
    "org",
    "suspend",
    "--org",
    d.h.org,
    "--reason",
    "abuse",
  ]);
  assert.equal(suspended.code, 0, suspended.stderr);
  assert.equal(suspended.json.suspended, true);
  assert.equal(await statusUntil(d.h.url, d.h.key, 403), 403);
  const restored = await cli(d.h.kvPath, ["org", "restore", "--org", d.h.org]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(restored.json.suspended, false);
  assert.equal(await statusUntil(d.h.url, d.h.key, 200), 200);
  const audit = await d.dash.deps.control.listAudit(d.h.org, 10);
  assert.deepEqual(
    audit.filter((e) => e.action.startsWith("org.")).map((e) => [e.action, e.actor]),
    [["org.restored", "cli"], ["org.suspended", "cli"]],
  );
  const missing = await cli(d.h.kvPath, ["org", "suspend", "--org", "org_nope"]);
  assert.equal(missing.code, 1);
  assert.match(JSON.parse(missing.stderr).error, /Organization not found/);
});

Deno.test("admin CLI — credits correct takes a negative amount after a space and needs a reason", async () => {
  await using d = await startDashboardHarness({ credits: 5_000_000 });
  await d.h.flushed();
  const before = (await d.h.store.getOrg(d.h.org))!;
  const correct = (...flags: string[]) =>
    cli(d.h.kvPath, ["credits", "correct", "--org", d.h.org, ...flags]);
  const noReason = await correct("--micro-eur", "-1500000");
  assert.equal(noReason.code, 1);
  assert.match(JSON.parse(noReason.stderr).error, /--reason/);
  const done = await correct("--micro-eur", "-1500000", "--reason", "double top-up");
  assert.equal(done.code, 0, done.stderr);
  assert.equal(done.json.amount_micro_eur, -1_500_000);
  assert.equal(done.json.balance_micro_eur, before.balance_micro_eur - 1_500_000);
  const after = (await d.h.store.getOrg(d.h.org))!;
  assert.equal(after.granted_micro_eur, before.granted_micro_eur - 1_500_000);
  const [entry] = await d.dash.deps.control.listLedger(d.h.org, 1);
  assert.deepEqual(
    [entry!.kind, entry!.amount_micro_eur, entry!.note, entry!.actor],
    ["correction", -1_500_000, "double top-up", "cli"],
  );
  const zero = await correct("--micro-eur=0", "--reason", "x");
  assert.equal(zero.code, 1);
  assert.match(JSON.parse(zero.stderr).error, /non-zero/);
});

Deno.test("admin CLI — key revoke is audited in the key's organization; user remove-2fa turns the second factor off", async () => {
  await using d = await startDashboardHarness();
  await d.h.flushed();
  const revoked = await cli(d.h.kvPath, ["key", "revoke", "--id", d.h.keyId]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.deepEqual(revoked.json, { id: d.h.keyId, revoked: true });
  const audit = await d.dash.deps.control.listAudit(d.h.org, 10);
  const entry = audit.find((e) => e.action === "key.revoked");
  assert.deepEqual([entry?.target, entry?.actor], [d.h.keyId, "cli"]);

  const id = await d.user("ann@example.eu", d.h.org, "owner");
  await d.dash.deps.twoFactor.putPendingTotp({
    user: id,
    secret: "JBSWY3DPEHPK3PXP",
    created: new Date().toISOString(),
    enabled_at: null,
    last_step: 0,
    recovery_hashes: [],
  });
  await d.dash.deps.twoFactor.enableTotp(id, "JBSWY3DPEHPK3PXP", new Date().toISOString(), 1, []);
  const login = await new ApiClient(d.url).post("/api/login", {
    email: "ann@example.eu",
    password: "correct horse battery staple",
  });
  assert.equal(login.body.two_factor_required, true);
  const off = await cli(d.h.kvPath, ["user", "remove-2fa", "--email", "ann@example.eu"]);
  assert.equal(off.code, 0, off.stderr);
  assert.equal(off.json.removed, true);
  await ApiClient.signedIn(d.url, "ann@example.eu");
});
