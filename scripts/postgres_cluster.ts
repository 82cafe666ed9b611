/**
 * A throwaway PostgreSQL cluster (one test file, or one `deno task bench --state postgres`):
 * `initdb` in a temp dir, a server on
 * 127.0.0.1 at a free port, torn down (immediate stop, dir removed) by `stop()`. `initdb`
 * refuses root, so as root every server command runs as the `postgres` OS user (`runuser`).
 * Each test gets its own database from `database()`; `pause()`/`resume()` stop and restart the
 * server on the same port and data (fault tests).
 */
import postgres from "postgres";

export interface PgCluster {
  /** `postgres://sovra@127.0.0.1:<port>/postgres` (trust auth: no password). */
  readonly url: string;
  readonly port: number;
  /** Creates an empty database and returns its URL. */
  database(name?: string): Promise<string>;
  /** Stops the server (fast shutdown: connections are cut); data is kept. */
  pause(): Promise<void>;
  /** Starts the stopped server again on the same port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

async function pgBin(): Promise<string> {
  const versions: number[] = [];
  try {
    for await (const entry of Deno.readDir("/usr/lib/postgresql")) {
      if (/^\d+$/.test(entry.name)) versions.push(Number(entry.name));
    }
  } catch {
    // Not installed.
  }
  const newest = versions.sort((a, b) => b - a)[0];
  if (newest === undefined) {
    throw new Error("PostgreSQL server not installed (apt-get install -y postgresql).");
  }
  return `/usr/lib/postgresql/${newest}/bin`;
}

const isRoot = () => Deno.uid() === 0;

export interface PgClusterOptions {
  /**
   * Keep PostgreSQL's durability (fsync, full-page writes) on, as a production server has it
   * (the benchmark); off by default (tests: crash tests kill the gateway, never the server).
   */
  durable?: boolean;
  /** Pins the server's processes to this CPU (`taskset`; the benchmark's layout). */
  cpu?: number;
}

async function run(argv: string[], cpu?: number): Promise<void> {
  const asUser = isRoot() ? ["runuser", "-u", "postgres", "--", ...argv] : argv;
  const [cmd, ...args] = cpu === undefined ? asUser : ["taskset", "-c", String(cpu), ...asUser];
  const out = await new Deno.Command(cmd!, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    throw new Error(`${argv[0]} failed: ${err.trim()}`);
  }
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string) => {
    const out = await new Deno.Command("id", { args: [flag, "postgres"], stdout: "piped" })
      .output();
    return Number(new TextDecoder().decode(out.stdout).trim());
  };
  return { uid: await id("-u"), gid: await id("-g") };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

let databases = 0;

/** Starts a cluster (≈1 s). */
export async function startPostgres(options: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = await pgBin();
  const dir = await Deno.makeTempDir({ prefix: "sovra-pg-" });
  if (isRoot()) {
    const { uid, gid } = await postgresIds();
    await Deno.chown(dir, uid, gid);
  }
  const data = `${dir}/data`;
  await run([
    `${bin}/initdb`,
    "-D",
    data,
    "-U",
    "sovra",
    "-A",
    "trust",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
    "--no-instructions",
  ]);
  const durability = options.durable ? "" : " -c fsync=off -c full_page_writes=off";
  const port = freePort();
  const start = () =>
    run([
      `${bin}/pg_ctl`,
      "-D",
      data,
      "-l",
      `${dir}/server.log`,
      "-w",
      "-t",
      "30",
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}${durability} -c max_connections=200`,
      "start",
    ], options.cpu);
  const halt = (mode: string) => run([`${bin}/pg_ctl`, "-D", data, "-m", mode, "-w", "stop"]);
  await start();
  const url = `postgres://sovra@127.0.0.1:${port}/postgres`;
  let running = true;
  // A safety net for filtered or crashed runs: never leave a server behind.
  globalThis.addEventListener("unload", () => {
    if (!running) return;
    const argv = [`${bin}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"];
    const [cmd, ...args] = isRoot() ? ["runuser", "-u", "postgres", "--", ...argv] : argv;
    new Deno.Command(cmd!, { args, stdout: "null", stderr: "null" }).outputSync();
    Deno.removeSync(dir, { recursive: true });
  });
  return {
    url,
    port,
    async database(name) {
      const db = name ?? `t${++databases}_${crypto.randomUUID().slice(0, 8)}`;
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`create database "${db}"`);
      } finally {
        await admin.end();
      }
      return `postgres://sovra@127.0.0.1:${port}/${db}`;
    },
    async pause() {
      await halt("fast");
      running = false;
    },
    async resume() {
      await start();
      running = true;
    },
    async stop() {
      if (running) await halt("immediate").catch(() => {});
      running = false;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
