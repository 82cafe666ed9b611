/**
 * Operator contract "Admin CLI" (as a real subprocess: one JSON object or JSON lines on
 * stdout, `{"error": …}` on stderr and a non-zero exit on failure, same KV as a running
 * gateway) and the request metadata fields of a `requests` line.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import {
  chatBody,
  expectError,
  getWithKey,
  jsonLines,
  ManualClock,
  requestRows,
  runAdminCli,
} from "../helpers/api.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { kvControlPlane } from "../../src/state/kv/control_plane.ts";
import { closing } from "../helpers/dispose.ts";

const METADATA_FIELDS = [
  "id",
  "created",
  "org",
  "key_id",
  "user",
  "endpoint",
  "requested_model",
  "served_model",
  "provider",
  "status",
  "latency_ms",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "audio_seconds",
  "characters",
  "cost_micro_eur",
  "estimated",
  "stream",
  "fallbacks",
  "cached_tokens",
  "cache_write_tokens",
  "cache_write_1h_tokens",
  "cache_savings_micro_eur",
].sort();

function one(stdout: string): Record<string, unknown> {
  const lines = jsonLines(stdout);
  assert.equal(lines.length, 1, `expected one JSON object, got: ${stdout}`);
  return lines[0]!;
}

Deno.test("admin CLI — org create, key create, key list (never the key) on a KV file", async () => {
  await using tmp = await tempDir({ prefix: "sovra-cli-" });
  const dir = tmp.path;
  const kv = `${dir}/admin.kv`;
  const created = await runAdminCli(kv, [
    "org",
    "create",
    "--name",
    "X",
    "--credits-micro-eur",
    "5",
  ]);
  assert.equal(created.code, 0, created.stderr);
  const org = one(created.stdout);
  assert.equal(typeof org.id, "string");
  assert.equal(org.name, "X");
  assert.equal(org.balance_micro_eur, 5);

  const keyRun = await runAdminCli(kv, ["key", "create", "--org", String(org.id), "--rpm", "7"]);
  assert.equal(keyRun.code, 0, keyRun.stderr);
  const key = one(keyRun.stdout);
  assert.equal(typeof key.id, "string");
  assert.match(String(key.key), /^sk-ex-[0-9A-Za-z]{43}$/);
  assert.equal(key.rpm, 7);

  const list = await runAdminCli(kv, ["key", "list", "--org", String(org.id)]);
  assert.equal(list.code, 0, list.stderr);
  const keys = jsonLines(list.stdout);
  assert.equal(keys.length, 1);
  assert.equal(keys[0]!.id, key.id);
  assert.ok(!("key" in keys[0]!), "key list prints the key");
  assert.ok(!list.stdout.includes(String(key.key)), "key list leaks the key");
  assert.ok(!list.stdout.includes(String(key.key).slice(12)), "key list leaks most of the key");
});

Deno.test("admin CLI — failures exit non-zero with a JSON error on stderr", async () => {
  await using tmp = await tempDir({ prefix: "sovra-cli-" });
  const dir = tmp.path;
  const kv = `${dir}/admin.kv`;
  const runs = await Promise.all([
    runAdminCli(kv, ["org", "frobnicate"]),
    runAdminCli(`${dir}/other.kv`, [
      "credits",
      "topup",
      "--org",
      "org_missing",
      "--micro-eur",
      "5",
    ]),
  ]);
  for (const run of runs) {
    assert.notEqual(run.code, 0, `exit 0 for a failing command: ${run.stdout}`);
    assert.equal(run.stdout.trim(), "", "a failing command printed to stdout");
    const error = JSON.parse(run.stderr.trim().split("\n").at(-1)!) as Record<string, unknown>;
    assert.ok(typeof error.error === "string" && error.error.length > 0, run.stderr);
  }
});

Deno.test("admin CLI — on the KV of a running gateway: a CLI key works at once, requests lists it, revoke bites", async () => {
  const clock = new ManualClock();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    now: clock.now,
  });
  const keyRun = await runAdminCli(h.kvPath, ["key", "create", "--org", h.org, "--name", "cli"]);
  assert.equal(keyRun.code, 0, keyRun.stderr);
  const key = one(keyRun.stdout);
  const res = await h.post(
    "/v1/chat/completions",
    chatBody("acme/chat", "hi", { user: "alice" }),
    {
      authorization: `Bearer ${String(key.key)}`,
    },
  );
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
  await requestRows(h, 1);

  const requests = await runAdminCli(h.kvPath, ["requests", "--org", h.org]);
  assert.equal(requests.code, 0, requests.stderr);
  const lines = jsonLines(requests.stdout);
  assert.equal(lines.length, 1);
  const row = lines[0]!;
  assert.deepEqual(Object.keys(row).sort(), METADATA_FIELDS);
  assert.equal(row.key_id, key.id);
  assert.equal(row.user, "alice");
  assert.equal(row.org, h.org);
  assert.equal(row.status, 200);
  assert.ok(!requests.stdout.includes("weather in the harbour"));

  const revoke = await runAdminCli(h.kvPath, ["key", "revoke", "--id", String(key.id)]);
  assert.equal(revoke.code, 0, revoke.stderr);
  assert.deepEqual(one(revoke.stdout), { id: key.id, revoked: true });
  clock.advance(30_001);
  await expectError(await getWithKey(`${h.url}/v1/models`, String(key.key)), 401);
});

Deno.test("request metadata — exactly the contract's fields, values consistent with the request", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const started = Date.now();
  const completion = await h.client.chat.completions.create({
    model: "acme/chat",
    messages: [{ role: "user", content: "one two three" }],
    user: "end-user-42",
  });
  const stream = await h.client.chat.completions.create({
    model: "acme/chat",
    messages: [{ role: "user", content: "four five" }],
    stream: true,
  });
  for await (const _ of stream) { /* drain */ }
  const rows = await requestRows(h, 2);
  assert.equal(rows.length, 2);
  for (const row of rows) assert.deepEqual(Object.keys(row).sort(), METADATA_FIELDS);

  // Newest first.
  const [streamed, plain] = rows.map((r) => ({ ...r }) as Record<string, unknown>);
  assert.ok(streamed && plain);
  assert.equal(plain.user, "end-user-42");
  assert.equal(streamed.user, null, "a user was recorded that the client never sent");
  assert.equal(plain.stream, false);
  assert.equal(streamed.stream, true);
  for (const row of [plain, streamed]) {
    assert.equal(row.org, h.org);
    assert.equal(row.key_id, h.keyId);
    assert.equal(row.endpoint, "chat");
    assert.equal(row.requested_model, "acme/chat");
    assert.equal(typeof row.served_model, "string");
    assert.equal(row.provider, "sim-a");
    assert.equal(row.status, 200);
    assert.equal(row.estimated, false);
    assert.equal(row.fallbacks, 0);
    assert.ok(typeof row.latency_ms === "number" && row.latency_ms >= 0);
    const created = Date.parse(String(row.created));
    assert.ok(created >= started - 60_000 && created <= Date.now() + 60_000, String(row.created));
    assert.equal(row.total_tokens, Number(row.prompt_tokens) + Number(row.completion_tokens));
    assert.ok(typeof row.cost_micro_eur === "number" && row.cost_micro_eur > 0);
    assert.ok(row.audio_seconds === null || row.audio_seconds === 0);
    assert.ok(row.characters === null || row.characters === 0);
  }
  assert.equal(plain.prompt_tokens, completion.usage?.prompt_tokens);
  assert.equal(plain.completion_tokens, completion.usage?.completion_tokens);
  assert.notEqual(plain.id, streamed.id);
});

Deno.test("admin CLI — credits topup is the dashboard's grant: a ledger line and a credits.granted audit entry, actor cli", async () => {
  await using tmp = await tempDir({ prefix: "sovra-cli-topup-" });
  const kv = `${tmp.path}/admin.kv`;
  const org = String(
    JSON.parse((await runAdminCli(kv, ["org", "create", "--name", "T"])).stdout).id,
  );
  const topup = await runAdminCli(kv, ["credits", "topup", "--org", org, "--micro-eur", "1250"]);
  assert.equal(topup.code, 0, topup.stderr);
  assert.equal(topup.stdout.trim(), JSON.stringify({ org, balance_micro_eur: 1250 }));
  const zero = await runAdminCli(kv, ["credits", "topup", "--org", org, "--micro-eur", "0"]);
  assert.equal(zero.code, 1, "a zero top-up is refused");

  await using store = closing(await openKvStore(kv));
  const { control } = kvControlPlane(store.kv);
  const ledger = await control.listLedger(org, 10);
  assert.deepEqual(
    ledger.map((l) => [l.amount_micro_eur, l.actor, l.note]),
    [[1250, "cli", "credits topup"]],
  );
  const audit = await control.listAudit(org, 10);
  assert.deepEqual(
    audit.map((e) => [e.action, e.actor, e.target, e.detail]),
    [["credits.granted", "cli", org, { amount_micro_eur: 1250, note: "credits topup" }]],
  );
});

Deno.test("admin CLI — key create trims the name and refuses control characters or more than 64 characters, naming the field", async () => {
  await using tmp = await tempDir({ prefix: "sovra-cli-" });
  const kv = `${tmp.path}/admin.kv`;
  const org = one((await runAdminCli(kv, ["org", "create", "--name", "X"])).stdout);
  const create = (name: string) =>
    runAdminCli(kv, ["key", "create", "--org", String(org.id), "--name", name]);
  for (const name of ["line\nbreak", "esc\u001b[31m", "x".repeat(65)]) {
    const run = await create(name);
    assert.equal(run.code, 1, JSON.stringify(name));
    assert.match(JSON.parse(run.stderr).error, /key name/);
  }
  const ok = await create("  nightly batch  ");
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(one(ok.stdout).name, "nightly batch");
});
