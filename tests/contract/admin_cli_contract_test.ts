/**
 * Operator contract "Admin CLI", the points tests/admin/admin_cli_test.ts does not pin: the printed
 * keys of every command, the key shown only at creation, `requests` newest first with `--limit`,
 * and JSON errors for missing flags, unknown flags and non-numeric amounts.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { chatBody, jsonLines, requestRows, runAdminCli } from "../helpers/api.ts";
import { tempDir } from "../helpers/temp_dir.ts";

function one(stdout: string): Record<string, unknown> {
  const lines = jsonLines(stdout);
  assert.equal(lines.length, 1, `expected one JSON object, got: ${stdout}`);
  return lines[0]!;
}

function assertJsonFailure(run: { code: number; stdout: string; stderr: string }, what: string) {
  assert.notEqual(run.code, 0, `${what}: exit 0`);
  assert.equal(run.stdout.trim(), "", `${what}: printed to stdout`);
  const last = run.stderr.trim().split("\n").at(-1) ?? "";
  const body = JSON.parse(last) as Record<string, unknown>;
  assert.ok(typeof body.error === "string" && body.error.length > 0, `${what}: ${run.stderr}`);
}

Deno.test("admin CLI — each command prints the contract's keys; the key only at `key create`", async () => {
  await using tmp = await tempDir({ prefix: "sovra-contract-cli-" });
  const dir = tmp.path;
  const kv = `${dir}/admin.kv`;
  const org = one((await runAdminCli(kv, ["org", "create", "--name", "Acme"])).stdout);
  assert.deepEqual(Object.keys(org).sort(), ["balance_micro_eur", "id", "name"]);
  assert.equal(org.balance_micro_eur, 0);
  const id = String(org.id);

  const [topup, key] = await Promise.all([
    runAdminCli(kv, ["credits", "topup", "--org", id, "--micro-eur", "1250"]),
    runAdminCli(kv, ["key", "create", "--org", id, "--rpm", "9", "--name", "ci"]),
  ]);
  assert.deepEqual(one(topup.stdout), { org: id, balance_micro_eur: 1250 });
  const created = one(key.stdout);
  for (const field of ["id", "key", "rpm"]) assert.ok(field in created, key.stdout);
  assert.equal(created.rpm, 9);
  const secret = String(created.key);
  assert.match(secret, /^sk-ex-/);

  const [show, list, keys, requests] = await Promise.all([
    runAdminCli(kv, ["org", "show", "--org", id]),
    runAdminCli(kv, ["org", "list"]),
    runAdminCli(kv, ["key", "list", "--org", id]),
    runAdminCli(kv, ["requests", "--org", id]),
  ]);
  const shown = one(show.stdout);
  assert.equal(shown.id, id);
  assert.equal(shown.name, "Acme");
  assert.equal(shown.balance_micro_eur, 1250);
  assert.deepEqual(jsonLines(list.stdout).map((o) => o.id), [id]);
  assert.equal(jsonLines(keys.stdout).length, 1);
  assert.equal(requests.code, 0, requests.stderr);
  for (const run of [show, list, keys, requests]) {
    assert.ok(!run.stdout.includes(secret.slice(10)), `the key leaks: ${run.stdout}`);
  }

  const revoke = await runAdminCli(kv, ["key", "revoke", "--id", String(created.id)]);
  assert.deepEqual(one(revoke.stdout), { id: created.id, revoked: true });
});

Deno.test("admin CLI — missing flags, unknown flags and non-numeric amounts fail with a JSON error", async () => {
  await using tmp = await tempDir({ prefix: "sovra-contract-cli-" });
  const dir = tmp.path;
  const kv = `${dir}/admin.kv`;
  const id = String(one((await runAdminCli(kv, ["org", "create", "--name", "A"])).stdout).id);
  const cases: Array<[string, string[]]> = [
    ["missing --name", ["org", "create"]],
    ["missing --org", ["org", "show"]],
    ["missing --micro-eur", ["credits", "topup", "--org", id]],
    ["missing --id", ["key", "revoke"]],
    ["unknown flag", ["org", "list", "--bogus", "1"]],
    ["flag without value", ["org", "show", "--org"]],
    ["decimal amount", ["credits", "topup", "--org", id, "--micro-eur", "1.5"]],
    ["word amount", ["org", "create", "--name", "B", "--credits-micro-eur", "ten"]],
    ["negative amount", ["credits", "topup", "--org", id, "--micro-eur=-5"]],
    ["exponent amount", ["credits", "topup", "--org", id, "--micro-eur", "1e3"]],
    ["non-numeric rpm", ["key", "create", "--org", id, "--rpm", "fast"]],
    ["non-numeric limit", ["requests", "--org", id, "--limit", "all"]],
    ["unknown org", ["requests", "--org", "org_nope"]],
    ["unknown command", ["org", "delete", "--org", id]],
  ];
  const runs = await Promise.all(cases.map(([, args]) => runAdminCli(kv, args)));
  runs.forEach((run, i) => assertJsonFailure(run, cases[i]![0]));
  // Nothing was changed by the failures.
  const after = one((await runAdminCli(kv, ["org", "show", "--org", id])).stdout);
  assert.equal(after.balance_micro_eur, 0);
  assert.equal(jsonLines((await runAdminCli(kv, ["org", "list"])).stdout).length, 1);
});

Deno.test({
  // Regression (found by the contract audit).
  name: "admin CLI — a balance above 2^53 is printed exactly or refused",
  async fn() {
    await using tmp = await tempDir({ prefix: "sovra-contract-cli-" });
    const dir = tmp.path;
    const run = await runAdminCli(`${dir}/admin.kv`, [
      "org",
      "create",
      "--name",
      "Big",
      "--credits-micro-eur",
      "9007199254740993",
    ]);
    if (run.code === 0) assert.ok(run.stdout.includes("9007199254740993"), run.stdout);
    else assertJsonFailure(run, "too large");
  },
});

Deno.test("admin CLI — `requests` lists newest first and honours --limit", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  for (const user of ["first", "second", "third"]) {
    const res = await h.post("/v1/chat/completions", chatBody("acme/chat", "hi", { user }));
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  await requestRows(h, 3);
  const [all, two] = await Promise.all([
    runAdminCli(h.kvPath, ["requests", "--org", h.org]),
    runAdminCli(h.kvPath, ["requests", "--org", h.org, "--limit", "2"]),
  ]);
  assert.deepEqual(jsonLines(all.stdout).map((r) => r.user), ["third", "second", "first"]);
  assert.deepEqual(jsonLines(two.stdout).map((r) => r.user), ["third", "second"]);
});
