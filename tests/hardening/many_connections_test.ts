/**
 * The process as shipped serves a thousand clients: `main.ts` under exactly the permission
 * flags of `deno task start` (the Dockerfile's ENTRYPOINT and the systemd unit's ExecStart
 * use the same ones), no connection variable set. There is no connection ceiling in the process
 * (none could be derived: `/proc/self/limits` is not readable without `--allow-all`); the
 * open-file limit is the only one, and Deno raises its soft limit to the hard one at start (started here under a soft
 * limit of 1,024, systemd's default for a service). Then 1,000 idle
 * connections without a key, on the API and on the dashboard beside it, lock out no client:
 * a client with a key is answered, the sign-in page is served.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startProcessGateway } from "./process_gateway.ts";
import { chatRequest, RawConnection } from "./raw_http.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const CLIENTS = 1_000;

/** The flags between `run` and `main.ts` of a start command. */
function flagsOf(command: string[]): string[] {
  return command.slice(command.indexOf("run") + 1, command.indexOf("main.ts"))
    .filter((f) => f !== "--cached-only");
}

async function shippedFlags(): Promise<string[]> {
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks;
  const start = flagsOf(String(tasks.start).split(/\s+/));
  const entry = (await Deno.readTextFile(`${ROOT}Dockerfile`)).split("\n")
    .find((l) => l.startsWith("ENTRYPOINT"))!;
  const docker = flagsOf(JSON.parse(entry.slice("ENTRYPOINT".length)));
  const unit = (await Deno.readTextFile(`${ROOT}deploy/sovra.service`)).split("\n")
    .find((l) => l.startsWith("ExecStart="))!;
  const systemd = flagsOf(unit.slice("ExecStart=".length).split(/\s+/));
  assert.deepEqual(docker, start, "the Dockerfile starts with the task's flags");
  assert.deepEqual(systemd, start, "the unit starts with the task's flags");
  assert.ok(!start.includes("-A") && !start.includes("--allow-all"));
  return start;
}

function hardFileLimit(): number {
  const line = Deno.readTextFileSync("/proc/self/limits").split("\n")
    .find((l) => l.startsWith("Max open files"))!;
  return Number(line.split(/\s+/)[4]);
}

Deno.test("shipped flags, no limit variable — 1,000 concurrent clients are all served; 1,000 idle keyless sockets lock nobody out", async () => {
  // This test holds 2,000 sockets of its own and the gateway as many: Deno raised both
  // processes' soft limits to the hard one.
  assert.ok(
    hardFileLimit() >= 4 * CLIENTS,
    `the hard open-file limit ${hardFileLimit()} is too low`,
  );
  await using gw = await startProcessGateway({
    models: [chatModel("acme/chat", "up")],
    flags: await shippedFlags(),
    // systemd's default soft limit for a service: Deno raises it to the hard one at start.
    softFdLimit: 1024,
    // The store's deadline is not this test's subject: 1,000 first requests at once on a loaded
    // host may wait longer than the default second for their key's first read.
    env: { SOVRA_STORE_DEADLINE_MS: "10000" },
  });
  const port = Number(new URL(gw.url).port);
  const opened = (n: number, to = port) =>
    Promise.all(Array.from({ length: n }, () => RawConnection.open(to)));

  // 1,000 clients, each on its own connection, all open at once, then all asking at once.
  const clients = await opened(CLIENTS);
  const answers = await Promise.all(clients.map(async (conn) => {
    const { head, body } = chatRequest(gw.key);
    await conn.write(head + body);
    return (await conn.answer())?.status;
  }));
  for (const conn of clients) conn.close();
  const served = answers.filter((s) => s === 200).length;
  assert.equal(served, CLIENTS, `served ${served} of ${CLIENTS}: ${[...new Set(answers)]}`);

  // 1,000 sockets without a key, idle or stopped halfway through their headers.
  const dashboardPort = Number(
    new URL(String(
      JSON.parse(await gw.main.waitForLine((l) => l.includes("sovra dashboard listening"))).url,
    )).port,
  );
  const idle = [...await opened(CLIENTS / 2), ...await opened(CLIENTS / 2, dashboardPort)];
  await Promise.all(
    idle.slice(0, CLIENTS / 4).map((c) => c.write("GET / HTTP/1.1\r\nHost: x\r\n")),
  );
  const keyed = await RawConnection.open(port);
  const { head, body } = chatRequest(gw.key);
  await keyed.write(head + body);
  assert.equal((await keyed.answer())?.status, 200, "a client with a key is answered");
  keyed.close();
  const visitor = await RawConnection.open(dashboardPort);
  await visitor.write("GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  const page = await visitor.answer();
  assert.equal(page?.status, 200, `the dashboard's sign-in page is served: ${page?.status}`);
  visitor.close();
  for (const conn of idle) conn.close();
});
