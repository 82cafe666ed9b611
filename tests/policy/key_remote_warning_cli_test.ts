/**
 * `deno task admin policy set|show --key` as a real process, on a KV file: a key narrowing that
 * leaves the organization's remote guardrail classifier no route (the shipped catalog's
 * `mistral/mistral-moderation-2603` is only on `mistral`, strict and not ZDR) is saved, exit code
 * 0, with a warning in the JSON answer (`warnings`) and on stderr; so is an organization change
 * that switches the layer on over such a key; a narrowing that leaves the classifier a route, or an
 * organization without the remote layer, gets none.
 */
import assert from "node:assert/strict";
import { REPO_ROOT, runAdminCliWith } from "../helpers/api.ts";

const MODEL = "mistral/mistral-moderation-2603";

Deno.test("admin CLI — a key policy that leaves the remote classifier no route is saved with a warning", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-key-warning-" });
  const env = { SOVRA_KV: `${dir}/sovra.kv`, SOVRA_CATALOG: `${REPO_ROOT}/catalog` };
  const admin = (...args: string[]) => runAdminCliWith(env, args);
  const ok = async (...args: string[]) => {
    const out = await admin(...args);
    assert.equal(out.code, 0, out.stderr);
    return { json: JSON.parse(out.stdout), stderr: out.stderr };
  };
  try {
    const org = (await ok("org", "create", "--name", "W")).json.id as string;
    const key = (await ok("key", "create", "--org", org)).json.id as string;

    // Without the remote layer a key may block anything, unwarned.
    const plain = await ok("policy", "set", "--org", org, "--key", key, "--zdr-only", "true");
    assert.equal(plain.json.warnings, undefined);
    assert.equal(plain.stderr, "");

    // Switching the layer on at the organization then warns about that key (saved all the same).
    const on = await ok(
      "policy",
      "set",
      "--org",
      org,
      "--guardrail",
      "block",
      "--guardrail-remote",
      MODEL,
      "--guardrail-remote-on-error",
      "closed",
    );
    assert.deepEqual(on.json.guardrail_remote, {
      model: MODEL,
      timeout_ms: 1500,
      on_error: "closed",
    });
    assert.equal(on.json.warnings.length, 1);
    assert.match(on.json.warnings[0], new RegExp(`^Key '${key}'.*zdr_only \\(key policy\\)`));
    assert.deepEqual(JSON.parse(on.stderr), { warning: on.json.warnings[0] });
    const undone = await ok("policy", "set", "--org", org, "--key", key, "--zdr-only", "false");
    assert.equal(undone.json.warnings, undefined);
    assert.equal((await ok("policy", "show", "--org", org)).json.warnings, undefined);
    // strict_only leaves the (strict) classifier its route: no warning.
    const strict = await ok(
      "policy",
      "set",
      "--org",
      org,
      "--key",
      key,
      "--sovereignty",
      "strict_only",
    );
    assert.equal(strict.json.warnings, undefined);
    assert.equal(strict.stderr, "");

    for (const narrowing of [["--block-provider", "mistral"], ["--zdr-only", "true"]]) {
      const warned = await ok("policy", "set", "--org", org, "--key", key, ...narrowing);
      assert.equal(warned.json.warnings.length, 1, narrowing.join(" "));
      const [warning] = warned.json.warnings as string[];
      assert.match(warning!, new RegExp(`classifier '${MODEL}' no route`));
      assert.match(warning!, /\(key policy\)/);
      assert.match(warning!, /503 guardrail_unavailable/);
      // The same warning on stderr, one JSON line, for a person at the terminal.
      assert.deepEqual(JSON.parse(warned.stderr), { warning });
      // Saved anyway.
      const shown = await ok("policy", "show", "--org", org, "--key", key);
      assert.deepEqual(shown.json.warnings, [warning], "show warns too");
      assert.equal(shown.json.key.sovereignty, "strict_only");
      // Undo this narrowing for the next one.
      const undo = narrowing[0] === "--block-provider"
        ? ["--unblock-provider", "mistral"]
        : ["--zdr-only", "false"];
      const undone = await ok("policy", "set", "--org", org, "--key", key, ...undo);
      assert.equal(undone.json.warnings, undefined);
    }
    const stored = await ok("policy", "show", "--org", org, "--key", key);
    assert.deepEqual(stored.json.key, { id: key, sovereignty: "strict_only" });

    // Fail-open: the warning says the local scan decides alone.
    await ok("policy", "set", "--org", org, "--guardrail-remote-on-error", "open");
    const open = await ok(
      "policy",
      "set",
      "--org",
      org,
      "--key",
      key,
      "--block-provider",
      "mistral",
    );
    assert.match(open.json.warnings[0], /local scan alone/);
    // The organization's view (no --key) lists the key's warning too.
    assert.deepEqual((await ok("policy", "show", "--org", org)).json.warnings, open.json.warnings);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
