/**
 * The gateway as an operator runs it: `main.ts` in a real subprocess, its stderr read as
 * JSON lines. Used by the operator-contract tests (env, SIGHUP reload, start-up failures).
 */
import assert from "node:assert/strict";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { closing } from "../helpers/dispose.ts";

export const REPO_ROOT = new URL("../../", import.meta.url).pathname;

export interface MainProcess {
  /** Every stderr line so far. */
  readonly lines: string[];
  /** Resolves with the first stderr line (from index `from` on) that satisfies `match`. */
  waitForLine(match: (line: string) => boolean, from?: number): Promise<string>;
  signal(signal: Deno.Signal): void;
  /** The process's exit status. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Stops the process and waits for it and its stderr to end. */
  stop(): Promise<void>;
}

/** The permission flags of `deno task start` (between `run` and `main.ts`), from deno.json. */
export function taskStartFlags(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(`${REPO_ROOT}deno.json`)) as {
    tasks: Record<string, string>;
  };
  const command = config.tasks.start!.split(/\s+/);
  return command.slice(command.indexOf("run") + 1, command.indexOf("main.ts"));
}

/**
 * Starts `deno run -A main.ts` (or with `flags` instead of `-A`) with `env` added to the
 * environment, optionally under an open-file limit the shell sets before exec.
 */
export function startMain(
  env: Record<string, string>,
  options: { fdLimit?: number | undefined; softFdLimit?: number; flags?: string[] } = {},
): MainProcess {
  const deno = ["run", ...(options.flags ?? ["-A"]), "main.ts"];
  // `ulimit -n` sets both limits; `-Sn` only the soft one (what systemd gives a service: 1024).
  const ulimit = options.fdLimit
    ? `ulimit -n ${options.fdLimit}`
    : options.softFdLimit
    ? `ulimit -Sn ${options.softFdLimit}`
    : undefined;
  const child = new Deno.Command(ulimit ? "sh" : Deno.execPath(), {
    args: ulimit ? ["-c", `${ulimit} && exec "$0" "$@"`, Deno.execPath(), ...deno] : deno,
    cwd: REPO_ROOT,
    // The dashboard starts beside the gateway: a free port unless the test picks one. One
    // API isolate unless the test asks for more (per-isolate ceilings, tests/workers/).
    env: { NO_COLOR: "1", SOVRA_DASHBOARD_PORT: "0", SOVRA_WORKERS: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  const pump = (async () => {
    let pending = "";
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        lines.push(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
      for (const wake of waiters) wake();
    }
    if (pending !== "") lines.push(pending);
    ended = true;
    for (const wake of waiters) wake();
  })();

  return {
    lines,
    async waitForLine(match, from = 0) {
      // A safety net, not a timing assert: a missing line fails the test instead of hanging it.
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = lines.slice(from).find(match);
        if (found !== undefined) return found;
        if (ended || Date.now() > deadline) {
          throw new Error(`stderr has no such line; got:\n${lines.join("\n")}`);
        }
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, 500);
          waiters.add(wake);
        });
      }
    },
    signal(signal) {
      child.kill(signal);
    },
    status: child.status,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      await child.status;
      await pump;
    },
  };
}

/** Runs `main.ts` to its end (for start-up failures) and returns its exit code and stderr. */
export async function runMainToEnd(
  env: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: REPO_ROOT,
    // The dashboard starts beside the gateway: a free port unless the test picks one. One
    // API isolate unless the test asks for more (per-isolate ceilings, tests/workers/).
    env: { NO_COLOR: "1", SOVRA_DASHBOARD_PORT: "0", SOVRA_WORKERS: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

/** Parses one stderr line as a log record (it must be one JSON object with time, level, msg). */
export function logRecord(line: string): Record<string, unknown> {
  const value = JSON.parse(line) as unknown;
  assert.ok(value && typeof value === "object" && !Array.isArray(value), `not an object: ${line}`);
  const record = value as Record<string, unknown>;
  assert.equal(typeof record.time, "string", line);
  assert.equal(typeof record.level, "string", line);
  assert.equal(typeof record.msg, "string", line);
  return record;
}

/** Creates an organization with credit and a key in the KV file before a gateway opens it. */
export async function seedKey(kvPath: string): Promise<{ org: string; key: string }> {
  await using store = closing(await openKvStore(kvPath));
  const org = await runAdminCommand(store, {
    command: ["org", "create"],
    flags: { name: "Contract org", "credits-micro-eur": "1000000" },
    defaultRpm: 600,
  }) as { id: string };
  const key = await runAdminCommand(store, {
    command: ["key", "create"],
    flags: { org: org.id },
    defaultRpm: 600,
  }) as { key: string };
  return { org: org.id, key: key.key };
}

/** A minimal valid catalog: one openai-dialect provider and the given chat model ids. */
export async function writeMinimalCatalog(
  dir: string,
  modelIds: string[],
  baseUrl = "http://127.0.0.1:9/v1",
): Promise<void> {
  await Deno.writeTextFile(
    `${dir}/providers.json`,
    JSON.stringify({ version: 1, providers: { acme: { dialect: "openai", base_url: baseUrl } } }),
  );
  await Deno.writeTextFile(
    `${dir}/models.json`,
    JSON.stringify({
      version: 1,
      models: modelIds.map((id) => ({
        id,
        kind: "chat",
        sovereignty: "strict",
        routes: [{ provider: "acme", upstream_model: id.split("/")[1] }],
      })),
    }),
  );
}
