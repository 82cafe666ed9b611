/** Admin CLI `routing create|list|show|delete` (operator contract), save-time validation. */
import assert from "node:assert/strict";
import { jsonLines, runAdminCli } from "../helpers/api.ts";
import { tempDir } from "../helpers/temp_dir.ts";

function one(stdout: string): Record<string, unknown> {
  const lines = jsonLines(stdout);
  assert.equal(lines.length, 1, stdout);
  return lines[0]!;
}

function failure(run: { code: number; stdout: string; stderr: string }): string {
  assert.equal(run.code, 1, run.stdout);
  assert.equal(run.stdout.trim(), "");
  return String(JSON.parse(run.stderr.trim().split("\n").at(-1)!).error);
}

Deno.test("admin CLI — routing create/list/show/delete; bad values refused with the reason", async () => {
  await using tmp = await tempDir({ prefix: "sovra-routing-cli-" });
  const dir = tmp.path;
  const kv = `${dir}/admin.kv`;
  const org = String(one((await runAdminCli(kv, ["org", "create", "--name", "A"])).stdout).id);
  const other = String(one((await runAdminCli(kv, ["org", "create", "--name", "B"])).stdout).id);

  const created = one(
    (await runAdminCli(kv, [
      "routing",
      "create",
      "--org",
      org,
      "--id",
      "support",
      "--pool",
      "mistral/mistral-small-2506,mistral/mistral-large-2512",
      "--threshold",
      "7",
    ])).stdout,
  );
  assert.equal(created.id, "support");
  assert.equal(created.model, "router/support");
  assert.deepEqual(created.pool, ["mistral/mistral-small-2506", "mistral/mistral-large-2512"]);
  assert.equal(created.strategy, "auto");
  assert.equal(created.threshold, 7);

  const metrics = one(
    (await runAdminCli(kv, [
      "routing",
      "create",
      "--org",
      org,
      "--id",
      "fast",
      "--pool",
      "openai/gpt-oss-20b,openai/gpt-oss-120b",
      "--strategy",
      "metrics",
    ])).stdout,
  );
  assert.equal(metrics.strategy, "metrics");
  assert.deepEqual(metrics.weights, {
    latency: 0,
    ttft: 1,
    throughput: 0,
    error_rate: 1,
    price: 0,
  });

  const listed = jsonLines((await runAdminCli(kv, ["routing", "list", "--org", org])).stdout);
  assert.deepEqual(listed.map((p) => p.id), ["fast", "support"]);
  // Another organization sees none of them.
  assert.equal((await runAdminCli(kv, ["routing", "list", "--org", other])).stdout.trim(), "");
  assert.match(
    failure(await runAdminCli(kv, ["routing", "show", "--org", other, "--id", "support"])),
    /does not exist/,
  );
  assert.equal(
    one((await runAdminCli(kv, ["routing", "show", "--org", org, "--id", "support"])).stdout)
      .threshold,
    7,
  );

  const bad = (pool: string, extra: string[] = []) =>
    runAdminCli(kv, ["routing", "create", "--org", org, "--id", "x", "--pool", pool, ...extra]);
  assert.match(failure(await bad("nope/nothing")), /'nope\/nothing' is not in the catalog/);
  assert.match(
    failure(await bad("mistral/mistral-embed")),
    /'mistral\/mistral-embed' is an embedding model, not a chat model/,
  );
  assert.match(failure(await bad("mistral/mistral-small-2503")), /disabled/);
  assert.match(failure(await bad("router/support")), /is a router/);
  assert.match(
    failure(await bad("mistral/mistral-small-2506", ["--threshold", "11"])),
    /threshold/,
  );
  assert.match(
    failure(await bad("mistral/mistral-small-2506", ["--strategy", "cheapest"])),
    /strategy/,
  );
  assert.match(
    failure(await bad("mistral/mistral-small-2506,mistral/mistral-small-2506")),
    /twice/,
  );
  assert.match(
    failure(
      await runAdminCli(kv, [
        "routing",
        "create",
        "--org",
        org,
        "--id",
        "Bad Id",
        "--pool",
        "mistral/mistral-small-2506",
      ]),
    ),
    /slug/,
  );
  assert.match(
    failure(await runAdminCli(kv, ["routing", "list", "--org", "org_missing"])),
    /does not exist/,
  );

  assert.deepEqual(
    one((await runAdminCli(kv, ["routing", "delete", "--org", org, "--id", "fast"])).stdout),
    { deleted: true },
  );
  assert.match(
    failure(await runAdminCli(kv, ["routing", "delete", "--org", org, "--id", "fast"])),
    /does not exist/,
  );
});
