/**
 * Start-up problems name what to change — a port in use names SOVRA_PORT, an
 * unknown `SOVRA_*` variable (a typo) is warned about, and `admin --help` prints the command
 * table instead of a parser error.
 */
import assert from "node:assert/strict";
import { retiredSovraVariables, unknownSovraVariables } from "../../src/config.ts";
import { describeBindError } from "../../src/http/port_in_use.ts";
import {
  logRecord,
  REPO_ROOT,
  runMainToEnd,
  startMain,
  writeMinimalCatalog,
} from "./process_support.ts";

Deno.test("main.ts — a port in use stops the start naming SOVRA_PORT", async () => {
  const dir = await Deno.makeTempDir();
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    await writeMinimalCatalog(dir, ["acme/chat-1"]);
    const { code, stderr } = await runMainToEnd({
      SOVRA_PORT: String((taken.addr as Deno.NetAddr).port),
      SOVRA_KV: ":memory:",
      SOVRA_CATALOG: dir,
    });
    assert.equal(code, 1);
    const record = logRecord(stderr.trim().split("\n").at(-1)!);
    assert.match(String(record.reason), /already in use/);
    assert.match(String(record.reason), /set SOVRA_PORT to a free port/);
  } finally {
    taken.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("describeBindError — the dashboard's port names SOVRA_DASHBOARD_PORT", () => {
  const error = describeBindError(
    new Deno.errors.AddrInUse("Address already in use"),
    "SOVRA_DASHBOARD_PORT",
    "127.0.0.1",
    8081,
  );
  assert.match(error.message, /Port 8081 on 127\.0\.0\.1 .*set SOVRA_DASHBOARD_PORT/);
});

Deno.test("main.ts — an unknown SOVRA_ variable is warned about at start", async () => {
  const dir = await Deno.makeTempDir();
  await writeMinimalCatalog(dir, ["acme/chat-1"]);
  const main = startMain({
    SOVRA_PORT: "0",
    SOVRA_KV: ":memory:",
    SOVRA_CATALOG: dir,
    SOVRA_DEFAULT_PRM: "100",
  });
  try {
    const line = await main.waitForLine((l) => l.includes("SOVRA_DEFAULT_PRM"));
    const record = logRecord(line);
    assert.equal(record.level, "warn");
    assert.equal(record.name, "SOVRA_DEFAULT_PRM");
    await main.waitForLine((l) => l.includes("sovra listening"));
    // Only the typo: every variable the configuration reads is known.
    assert.equal(main.lines.filter((l) => l.includes("unknown SOVRA_")).length, 1);
  } finally {
    await main.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("unknownSovraVariables — the names the configuration reads are known", () => {
  assert.deepEqual(
    unknownSovraVariables({
      SOVRA_PORT: "1",
      SOVRA_DASHBOARD_PORT: "2",
      SOVRA_KV: ":memory:",
      SOVRA_LOG: "info",
      SOVRA_TRANSCRIPTION_SLOTS: "2",
      SOVRA_PROT: "1",
      SOVRA_EVAL_RESAMPLES: "30",
      PATH: "/bin",
    }),
    ["SOVRA_PROT"],
  );
  // A bad value elsewhere does not hide a typo.
  assert.deepEqual(unknownSovraVariables({ SOVRA_LOG: "loud", SOVRA_CATALGO: "x" }), [
    "SOVRA_CATALGO",
  ]);
});

Deno.test("main.ts — a retired connection variable is named in its own warning, pointing at the front proxy", async () => {
  const dir = await Deno.makeTempDir();
  await writeMinimalCatalog(dir, ["acme/chat-1"]);
  const main = startMain({
    SOVRA_PORT: "0",
    SOVRA_KV: ":memory:",
    SOVRA_CATALOG: dir,
    SOVRA_MAX_CONNECTIONS: "100",
  });
  try {
    const record = logRecord(await main.waitForLine((l) => l.includes("SOVRA_MAX_CONNECTIONS")));
    assert.equal(record.level, "warn");
    assert.match(String(record.msg), /front proxy/);
    await main.waitForLine((l) => l.includes("sovra listening"));
    assert.equal(main.lines.filter((l) => l.includes("unknown SOVRA_")).length, 0, "not a typo");
    assert.deepEqual(retiredSovraVariables({ SOVRA_CONNECTION_GUARD: "off", SOVRA_PORT: "1" }), [
      "SOVRA_CONNECTION_GUARD",
    ]);
  } finally {
    await main.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("admin --help prints the command table on stdout and exits 0", async () => {
  for (const args of [["--help"], ["-h"], ["help"], []]) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/admin.ts", ...args],
      cwd: REPO_ROOT,
      env: { NO_COLOR: "1", SOVRA_KV: "/nonexistent/sovra.kv" },
      stdin: "null",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    for (const command of ["org create --name NAME", "key create --org ID", "requests --org ID"]) {
      assert.ok(stdout.includes(command), `${args.join(" ")}: no '${command}' in\n${stdout}`);
    }
  }
});
