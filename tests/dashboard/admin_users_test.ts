/** Admin CLI account commands: `user create|list|remove`, as a real subprocess on a KV file. */
import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/api.ts";
import { ApiClient, PASSWORD, startDashboardHarness } from "./support.ts";

async function cli(kvPath: string, dashboardUrl: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/admin.ts", ...args],
    cwd: REPO_ROOT,
    env: { SOVRA_KV: kvPath, SOVRA_DASHBOARD_URL: dashboardUrl, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("admin CLI — user create prints a one-time link that sets the password; list and remove", async () => {
  await using d = await startDashboardHarness();
  await d.h.flushed();
  const made = await cli(d.h.kvPath, d.url, [
    "user",
    "create",
    "--email",
    "boss@example.eu",
    "--org",
    d.h.org,
    "--role",
    "owner",
  ]);
  assert.equal(made.code, 0, made.stderr);
  const user = JSON.parse(made.stdout);
  assert.equal(user.email, "boss@example.eu");
  assert.equal(user.role, "owner");
  assert.equal(user.password_set, false);
  const link = new URL(user.set_password_url);
  assert.equal(link.origin, d.url);
  const anon = new ApiClient(d.url);
  const set = await anon.post("/api/set-password", {
    token: link.searchParams.get("token"),
    password: PASSWORD,
  });
  assert.equal(set.status, 200);
  const boss = await ApiClient.signedIn(d.url, "boss@example.eu");
  assert.equal((await boss.get(`/api/orgs/${d.h.org}/members`)).status, 200);

  const op = await cli(d.h.kvPath, d.url, [
    "user",
    "create",
    "--email",
    "op@example.eu",
    "--operator",
  ]);
  assert.equal(op.code, 0, op.stderr);
  assert.equal(JSON.parse(op.stdout).operator, true);

  const listed = await cli(d.h.kvPath, d.url, ["user", "list", "--org", d.h.org]);
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => [l.email, l.role]), [["boss@example.eu", "owner"]]);
  const all = await cli(d.h.kvPath, d.url, ["user", "list"]);
  assert.equal(all.stdout.trim().split("\n").length, 2);
  assert.ok(!/password_hash|scrypt|token/.test(all.stdout), "never a hash or a token");

  const bad = await cli(d.h.kvPath, d.url, [
    "user",
    "create",
    "--email",
    "x@example.eu",
    "--org",
    d.h.org,
    "--role",
    "king",
  ]);
  assert.equal(bad.code, 1);
  assert.match(JSON.parse(bad.stderr).error, /role/);
  const lastOwner = await cli(d.h.kvPath, d.url, [
    "user",
    "remove",
    "--email",
    "boss@example.eu",
  ]);
  assert.equal(lastOwner.code, 1);
  assert.match(JSON.parse(lastOwner.stderr).error, /last owner/);
  const removed = await cli(d.h.kvPath, d.url, ["user", "remove", "--email", "op@example.eu"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(JSON.parse(removed.stdout).removed, true);
  const login = await anon.post("/api/login", { email: "op@example.eu", password: PASSWORD });
  assert.equal(login.status, 401);
});
