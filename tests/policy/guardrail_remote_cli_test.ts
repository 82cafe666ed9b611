/**
 * The guardrail's remote layer as a policy setting, through `deno task admin` as a real process,
 * on a KV file and on PostgreSQL: off by default, switched on with a catalog moderation model,
 * timeout and failure mode changed alone, switched off, every change audited; refused for a model
 * that is not a moderation model, a timeout out of range, a failure mode that is not open/closed, a
 * key (organization setting only), and a model the organization's own policy cannot reach.
 */
import assert from "node:assert/strict";
import { REPO_ROOT, runAdminCliWith } from "../helpers/api.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import type { Store } from "../../src/state/store.ts";

const MODEL = "mistral/mistral-moderation-2603";

type Backend = { env: Record<string, string>; open(): Promise<Store> };

function admin(backend: Backend, ...args: string[]) {
  return runAdminCliWith({ ...backend.env, SOVRA_CATALOG: `${REPO_ROOT}/catalog` }, args);
}

async function ok(backend: Backend, ...args: string[]) {
  const out = await admin(backend, ...args);
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout);
}

async function roundTrip(backend: Backend) {
  const org = (await ok(backend, "org", "create", "--name", "R")).id;
  assert.equal(
    (await ok(backend, "policy", "show", "--org", org)).guardrail_remote,
    null,
    "off by default",
  );

  const on = await ok(
    backend,
    "policy",
    "set",
    "--org",
    org,
    "--guardrail",
    "block",
    "--guardrail-remote",
    MODEL,
  );
  assert.deepEqual(on.guardrail_remote, { model: MODEL, timeout_ms: 1500, on_error: "open" });
  assert.ok(!on.models_allowed.includes(MODEL), "a moderation model is not a client model");

  const closed = await ok(
    backend,
    "policy",
    "set",
    "--org",
    org,
    "--guardrail-remote-timeout-ms",
    "300",
    "--guardrail-remote-on-error",
    "closed",
  );
  assert.deepEqual(closed.guardrail_remote, { model: MODEL, timeout_ms: 300, on_error: "closed" });
  assert.equal(closed.guardrail, "block", "fields not given are kept");
  assert.deepEqual(
    (await ok(backend, "policy", "show", "--org", org)).guardrail_remote,
    { model: MODEL, timeout_ms: 300, on_error: "closed" },
  );

  const key = (await ok(backend, "key", "create", "--org", org)).id;
  for (
    const bad of [
      ["--guardrail-remote", "mistral/mistral-small-2506"],
      ["--guardrail-remote", "no/such-model"],
      ["--guardrail-remote-timeout-ms", "20"],
      ["--guardrail-remote-timeout-ms", "60000"],
      ["--guardrail-remote-timeout-ms", "soon"],
      ["--guardrail-remote-on-error", "maybe"],
      ["--key", key, "--guardrail-remote", MODEL],
      ["--block-provider", "mistral", "--guardrail-remote", MODEL],
      // A data rule alone that leaves the classifier no route: refused as on the dashboard.
      ["--block-provider", "mistral"],
      ["--zdr-only", "true"],
    ]
  ) {
    const out = await admin(backend, "policy", "set", "--org", org, ...bad);
    assert.equal(out.code, 1, bad.join(" "));
    assert.match(JSON.parse(out.stderr).error, /guardrail-remote/, bad.join(" "));
  }
  const stillOn = await ok(backend, "policy", "show", "--org", org);
  assert.deepEqual(stillOn.guardrail_remote, { model: MODEL, timeout_ms: 300, on_error: "closed" });
  assert.deepEqual(stillOn.blocked_providers, [], "a refused change stores nothing");
  assert.equal(stillOn.zdr_only, false, "a refused change stores nothing");

  const off = await ok(backend, "policy", "set", "--org", org, "--guardrail-remote", "off");
  assert.equal(off.guardrail_remote, null);
  const needsModel = await admin(
    backend,
    "policy",
    "set",
    "--org",
    org,
    "--guardrail-remote-on-error",
    "open",
  );
  assert.equal(needsModel.code, 1, "a failure mode alone does not switch the layer on");

  // Every change is in the policy's audit trail, with before and after.
  const store = await backend.open();
  try {
    const audit = await store.listPolicyAudit(org, 10);
    const remotes = audit.map((e) =>
      (e.after as { guardrail_remote?: unknown } | null)?.guardrail_remote ?? null
    );
    assert.deepEqual(remotes.slice(0, 3), [
      null,
      { model: MODEL, timeout_ms: 300, on_error: "closed" },
      { model: MODEL, timeout_ms: 1500, on_error: "open" },
    ]);
    assert.ok(audit.every((e) => e.actor === "cli"));
  } finally {
    await store.close();
  }
}

Deno.test("guardrail remote layer — CLI round trip on a KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-remote-cli-" });
  try {
    const kv = `${dir}/sovra.kv`;
    await roundTrip({ env: { SOVRA_KV: kv }, open: () => openKvStore(kv) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("guardrail remote layer — CLI round trip on PostgreSQL", async () => {
  await using cluster = await startPostgres();
  await roundTrip({
    env: { SOVRA_DATABASE_URL: cluster.url },
    open: () => openPgStore(cluster.url, { spillPath: undefined }),
  });
});
