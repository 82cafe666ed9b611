/**
 * Operator contract "Catalog directory" and "Environment" on the real process: `main.ts`
 * logs JSON lines on stderr, a real SIGHUP after a good edit serves the new catalog, after a
 * bad edit keeps the old one and logs the file, the JSON path and the problem.
 */
import assert from "node:assert/strict";
import { logRecord, seedKey, startMain, writeMinimalCatalog } from "./process_support.ts";

async function modelIds(url: string, key: string): Promise<string[]> {
  const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  const body = await res.json() as { data: { id: string }[] };
  return body.data.map((m) => m.id).sort();
}

Deno.test("main.ts — SIGHUP reloads a good edit and keeps the old catalog on a bad one, logging JSON lines", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-contract-hup-" });
  const kvPath = `${dir}/sovra.kv`;
  const catalogDir = `${dir}/catalog`;
  await Deno.mkdir(catalogDir);
  await writeMinimalCatalog(catalogDir, ["acme/one"]);
  const { key } = await seedKey(kvPath);
  const main = startMain({
    SOVRA_PORT: "0",
    SOVRA_DASHBOARD_PORT: "0",
    SOVRA_KV: kvPath,
    SOVRA_CATALOG: catalogDir,
    SOVRA_LOG: "info",
  });
  try {
    const listening = logRecord(await main.waitForLine((l) => l.includes("sovra listening")));
    assert.equal(listening.level, "info");
    const url = String(listening.url);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(await modelIds(url, key), ["acme/one"]);

    // A good edit + SIGHUP: the new model is served.
    await writeMinimalCatalog(catalogDir, ["acme/one", "acme/two"]);
    let from = main.lines.length;
    main.signal("SIGHUP");
    const reloaded = logRecord(await main.waitForLine((l) => l.includes("catalog reload"), from));
    assert.equal(reloaded.msg, "catalog reloaded");
    assert.deepEqual(await modelIds(url, key), ["acme/one", "acme/two"]);

    // A bad edit + SIGHUP: the old catalog stays, the log names file, JSON path and problem.
    const models = JSON.parse(await Deno.readTextFile(`${catalogDir}/models.json`));
    models.models[1].routes[0].provider = "acmee";
    await Deno.writeTextFile(`${catalogDir}/models.json`, JSON.stringify(models));
    from = main.lines.length;
    main.signal("SIGHUP");
    const failed = logRecord(await main.waitForLine((l) => l.includes("catalog reload"), from));
    assert.equal(failed.level, "error");
    const text = JSON.stringify(failed);
    assert.ok(text.includes(`${catalogDir}/models.json`), text);
    assert.ok(text.includes("models[1].routes[0].provider"), text);
    assert.ok(text.includes("acmee"), text);
    assert.deepEqual(await modelIds(url, key), ["acme/one", "acme/two"]);

    // Every stderr line so far is a JSON log record.
    for (const line of main.lines.filter((l) => l.trim() !== "")) logRecord(line);
  } finally {
    await main.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
