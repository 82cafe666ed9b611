/** `deno task admin policy show|set` as a real process on a KV file (operator contract). */
import assert from "node:assert/strict";
import { REPO_ROOT, runAdminCliWith } from "../helpers/api.ts";

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
