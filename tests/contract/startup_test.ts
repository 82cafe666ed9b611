/**
 * Operator contract "Environment" defaults and start-up failures of the real process: a bad
 * catalog file stops the start with the file, the JSON path and the problem.
 */
import assert from "node:assert/strict";
import { configFromEnv } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { logRecord, runMainToEnd, startMain, writeMinimalCatalog } from "./process_support.ts";
import { tempDir } from "../helpers/temp_dir.ts";

Deno.test("configFromEnv — the contract's defaults when no variable is set", () => {
  const config = configFromEnv({});
  assert.equal(config.port, 8080);
  assert.equal(config.dashboardPort, 8081);
  assert.equal(config.host, "127.0.0.1");
  assert.equal(config.kvPath, "./data/sovra.kv");
  assert.equal(config.catalogDir, "./catalog");
  assert.equal(config.logLevel, "info");
});

Deno.test("configFromEnv — every contract variable is read", () => {
  const config = configFromEnv({
    SOVRA_PORT: "9001",
    SOVRA_DASHBOARD_PORT: "9002",
    SOVRA_HOST: "0.0.0.0",
    SOVRA_KV: ":memory:",
    SOVRA_CATALOG: "/etc/sovra/catalog",
    SOVRA_LOG: "debug",
  });
  assert.equal(config.port, 9001);
  assert.equal(config.dashboardPort, 9002);
  assert.equal(config.host, "0.0.0.0");
  assert.equal(config.kvPath, ":memory:");
  assert.equal(config.catalogDir, "/etc/sovra/catalog");
  assert.equal(config.logLevel, "debug");
});

Deno.test("main.ts — a bad catalog file stops the start naming the file, the JSON path and the problem", async () => {
  await using tmp = await tempDir({ prefix: "sovra-contract-start-" });
  const dir = tmp.path;
  await writeMinimalCatalog(dir, ["acme/one"]);
  const models = JSON.parse(await Deno.readTextFile(`${dir}/models.json`));
  models.models[0].pricing = { prompt_micro_eur_per_million: -1 };
  await Deno.writeTextFile(`${dir}/models.json`, JSON.stringify(models));
  const run = await runMainToEnd({
    SOVRA_PORT: "0",
    SOVRA_KV: `${dir}/sovra.kv`,
    SOVRA_CATALOG: dir,
  });
  assert.notEqual(run.code, 0);
  assert.ok(run.stderr.includes(`${dir}/models.json`), run.stderr);
  assert.ok(run.stderr.includes("models[0].pricing.prompt_micro_eur_per_million"), run.stderr);
  assert.ok(!run.stderr.includes("sovra listening"), run.stderr);

  // `"version": 1` is required in each file.
  await writeMinimalCatalog(dir, ["acme/one"]);
  await Deno.writeTextFile(
    `${dir}/providers.json`,
    JSON.stringify({ version: 2, providers: {} }),
  );
  const v2 = await runMainToEnd({
    SOVRA_PORT: "0",
    SOVRA_KV: `${dir}/sovra.kv`,
    SOVRA_CATALOG: dir,
  });
  assert.notEqual(v2.code, 0);
  assert.ok(v2.stderr.includes(`${dir}/providers.json: at version`), v2.stderr);
});

Deno.test({
  // Regression (found by the contract audit).
  name: "main.ts — a bad SOVRA_LOG stops the start with one clear line, no stack trace",
  async fn() {
    const run = await runMainToEnd({ SOVRA_PORT: "0", SOVRA_KV: ":memory:", SOVRA_LOG: "loud" });
    assert.notEqual(run.code, 0);
    assert.ok(run.stderr.includes("SOVRA_LOG"), run.stderr);
    assert.ok(!run.stderr.includes("Uncaught"), run.stderr);
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  },
});

Deno.test("main.ts — SOVRA_KV=:memory: starts, serves /healthz and logs only JSON lines", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-contract-mem-" });
  await writeMinimalCatalog(dir, ["acme/one"]);
  const main = startMain({ SOVRA_PORT: "0", SOVRA_KV: ":memory:", SOVRA_CATALOG: dir });
  try {
    const listening = logRecord(await main.waitForLine((l) => l.includes("sovra listening")));
    assert.equal(listening.kv, ":memory:");
    const res = await fetch(`${listening.url}/healthz`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    for (const line of main.lines.filter((l) => l.trim() !== "")) logRecord(line);
  } finally {
    await main.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createLogger — one JSON object per line with time, level, msg; below the level is dropped", () => {
  const lines: string[] = [];
  const log = createLogger("info", (line) => lines.push(line));
  log.debug("hidden", { a: 1 });
  log.info("shown", { request_id: "req_1", n: 2 });
  log.error("bad", { reason: "x" });
  assert.equal(lines.length, 2);
  for (const line of lines) {
    assert.ok(!line.includes("\n"));
    logRecord(line);
  }
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).level),
    ["info", "error"],
  );
  assert.equal(JSON.parse(lines[0]!).request_id, "req_1");
});
