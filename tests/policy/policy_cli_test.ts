/** `deno task admin policy show|set` as a real process on a KV file (operator contract). */
import assert from "node:assert/strict";
import { REPO_ROOT, runAdminCliWith } from "../helpers/api.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { kvControlPlane } from "../../src/state/kv/control_plane.ts";
import { closing } from "../helpers/dispose.ts";

function admin(kv: string, ...args: string[]) {
  return runAdminCliWith({ SOVRA_KV: kv, SOVRA_CATALOG: `${REPO_ROOT}/catalog` }, args);
}

Deno.test("admin CLI — policy show, set (repeated --block-provider), key narrowing, bad values exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-policy-cli-" });
  const kv = `${dir}/sovra.kv`;
  try {
    const org = JSON.parse((await admin(kv, "org", "create", "--name", "P")).stdout).id;
    const shown = JSON.parse((await admin(kv, "policy", "show", "--org", org)).stdout);
    assert.deepEqual(
      { ...shown, models_allowed: undefined },
      {
        org,
        sovereignty: "any",
        blocked_providers: [],
        zdr_only: false,
        allowed_models: null,
        guardrail: "off",
        guardrail_remote: null,
        models_allowed: undefined,
      },
    );
    const set = await admin(
      kv,
      "policy",
      "set",
      "--org",
      org,
      "--sovereignty",
      "strict_only",
      "--block-provider",
      "scaleway",
      "--block-provider",
      "ionos",
      "--zdr-only",
      "true",
      "--guardrail",
      "block",
    );
    assert.equal(set.code, 0, set.stderr);
    const policy = JSON.parse(set.stdout);
    assert.equal(policy.sovereignty, "strict_only");
    assert.deepEqual(policy.blocked_providers, ["ionos", "scaleway"]);
    assert.equal(policy.zdr_only, true);
    assert.equal(policy.guardrail, "block");
    assert.ok(!policy.models_allowed.some((m: string) => m.startsWith("anthropic/")));
    const unblocked = JSON.parse(
      (await admin(kv, "policy", "set", "--org", org, "--unblock-provider", "ionos")).stdout,
    );
    assert.deepEqual(unblocked.blocked_providers, ["scaleway"]);
    assert.equal(unblocked.sovereignty, "strict_only", "fields not given are kept");

    const key = JSON.parse((await admin(kv, "key", "create", "--org", org)).stdout).id;
    const narrowed = JSON.parse(
      (await admin(
        kv,
        "policy",
        "set",
        "--org",
        org,
        "--key",
        key,
        "--allowed-models",
        "mistral/mistral-small-2506",
      )).stdout,
    );
    assert.deepEqual(narrowed.key, { id: key, allowed_models: ["mistral/mistral-small-2506"] });
    assert.deepEqual(narrowed.models_allowed, ["mistral/mistral-small-2506"]);

    for (
      const bad of [
        ["--sovereignty", "eu"],
        ["--guardrail", "maybe"],
        ["--zdr-only", "yes"],
        ["--block-provider", "nope"],
        ["--allowed-models", "no/such-model"],
      ]
    ) {
      const out = await admin(kv, "policy", "set", "--org", org, ...bad);
      assert.equal(out.code, 1, bad.join(" "));
      assert.ok(JSON.parse(out.stderr).error.length > 0);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("admin CLI — policy set refusals keep their wording; an empty allow-list is refused for the organization and a key alike, nothing stored", async () => {
  await using tmp = await tempDir({ prefix: "sovra-policy-cli-" });
  const kv = `${tmp.path}/sovra.kv`;
  const org = JSON.parse((await admin(kv, "org", "create", "--name", "P")).stdout).id;
  const key = JSON.parse((await admin(kv, "key", "create", "--org", org)).stdout).id;
  const providers = Object.keys(
    JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/catalog/providers.json`)).providers,
  );
  const refused = async (args: string[], message: string) => {
    const out = await admin(kv, "policy", "set", "--org", org, ...args);
    assert.equal(out.code, 1, args.join(" "));
    assert.equal(out.stdout, "", args.join(" "));
    assert.deepEqual(JSON.parse(out.stderr), { error: message }, args.join(" "));
  };
  for (const scope of [[], ["--key", key]]) {
    await refused(
      [...scope, "--allowed-models", ","],
      "--allowed-models needs model ids or 'all'.",
    );
    await refused([...scope, "--allowed-models", ""], "--allowed-models needs model ids or 'all'.");
    await refused(
      [...scope, "--allowed-models", "mistral/mistral-small-2506,no/such"],
      "--allowed-models: unknown model 'no/such'.",
    );
    await refused(
      [...scope, "--block-provider", "ionos", "--block-provider", "nope"],
      `--block-provider: unknown provider 'nope' (catalog: ${providers.join(", ")}).`,
    );
    await refused(
      [...scope, "--sovereignty", "eu"],
      "--sovereignty must be one of any, strict_only, got 'eu'.",
    );
  }
  await refused(
    ["--key", key, "--guardrail-remote", "off"],
    "--guardrail-remote is an organization setting (the remote guardrail layer); drop --key.",
  );
  await refused(
    ["--guardrail-remote-timeout-ms", "300"],
    "--guardrail-remote: guardrail_remote: the remote layer is off; name a moderation model to switch it on.",
  );
  const shown = JSON.parse((await admin(kv, "policy", "show", "--org", org, "--key", key)).stdout);
  assert.equal(shown.allowed_models, null, "nothing stored for the organization");
  assert.equal(shown.blocked_providers.length, 0);
  assert.deepEqual(shown.key, { id: key }, "nothing stored for the key");
});

Deno.test("admin CLI — policy set writes the control-plane audit entry policy.changed, actor cli, like the dashboard", async () => {
  await using tmp = await tempDir({ prefix: "sovra-policy-cli-audit-" });
  const kv = `${tmp.path}/sovra.kv`;
  const org = JSON.parse((await admin(kv, "org", "create", "--name", "A")).stdout).id;
  const key = JSON.parse((await admin(kv, "key", "create", "--org", org)).stdout).id;
  const shown = await admin(kv, "policy", "show", "--org", org);
  assert.equal(shown.code, 0, shown.stderr);
  const orgSet = await admin(
    kv,
    ...["policy", "set", "--org", org, "--sovereignty", "strict_only"],
    ...["--block-provider", "ionos", "--zdr-only", "true"],
  );
  assert.equal(orgSet.code, 0, orgSet.stderr);
  const keySet = await admin(
    kv,
    ...["policy", "set", "--org", org, "--key", key],
    ...["--allowed-models", "mistral/mistral-small-2506", "--guardrail", "flag"],
  );
  assert.equal(keySet.code, 0, keySet.stderr);
  const refused = await admin(kv, "policy", "set", "--org", org, "--sovereignty", "eu");
  assert.equal(refused.code, 1, "a refused change is not audited");

  await using store = closing(await openKvStore(kv));
  const entries = await kvControlPlane(store.kv).control.listAudit(org, 10);
  // Newest first; `policy show` and the refused change left nothing.
  assert.deepEqual(entries.map((e) => [e.action, e.actor, e.target, e.detail]), [
    ["policy.changed", "cli", key, {
      key,
      sovereignty: null,
      blocked_providers: null,
      zdr_only: null,
      allowed_models: 1,
      guardrail: "flag",
    }],
    ["policy.changed", "cli", org, {
      sovereignty: "strict_only",
      blocked_providers: "ionos",
      zdr_only: true,
      allowed_models: "all",
      guardrail: "off",
      guardrail_remote: null,
    }],
  ]);
});
