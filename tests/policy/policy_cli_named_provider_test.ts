/**
 * `deno task admin policy set` keeps refusing an unknown `--block-provider` id (operator
 * contract, docs/policies.md: "refuses unknown providers"), also when `--unblock-provider`
 * names it again in the same command: the shared rules (`src/policy/policy_edit.ts`) check the
 * whole new list, from which that id is gone (review of b24733d: exit 0 and a silent no-op).
 */
import assert from "node:assert/strict";
import { REPO_ROOT, runAdminCliWith } from "../helpers/api.ts";

function admin(kv: string, ...args: string[]) {
  return runAdminCliWith({ SOVRA_KV: kv, SOVRA_CATALOG: `${REPO_ROOT}/catalog` }, args);
}

Deno.test("admin CLI — policy set refuses an unknown --block-provider that --unblock-provider also names (organization and key)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-policy-cli-named-" });
  const kv = `${dir}/sovra.kv`;
  try {
    const org = JSON.parse((await admin(kv, "org", "create", "--name", "P")).stdout).id;
    const key = JSON.parse((await admin(kv, "key", "create", "--org", org)).stdout).id;
    for (const who of [["--org", org], ["--org", org, "--key", key]]) {
      const before = (await admin(kv, "policy", "show", ...who)).stdout;
      const set = await admin(
        kv,
        "policy",
        "set",
        ...who,
        "--block-provider",
        "nope",
        "--unblock-provider",
        "nope",
      );
      assert.equal(set.code, 1, set.stdout);
      assert.equal(set.stdout, "");
      assert.match(
        set.stderr,
        /^\{"error":"--block-provider: unknown provider 'nope' \(catalog: mistral, /,
      );
      assert.equal((await admin(kv, "policy", "show", ...who)).stdout, before, "nothing stored");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
