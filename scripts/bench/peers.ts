/**
 * `deno task bench --peers`: the gateways users would pick instead of Sovra, measured in the
 * same run as plain OpenAI pass-throughs to the same simulator, pinned to the proxy's core.
 * Each is installed by the run into its temp dir (npm, or pip into a venv), never globally,
 * and only when asked. A peer that cannot be installed or started is skipped with the reason.
 *
 * - Portkey's gateway (npm `@portkey-ai/gateway`), run with Node: the provider and the
 *   simulator's base URL travel as `x-portkey-provider` / `x-portkey-custom-host` headers.
 * - The LiteLLM proxy (PyPI `litellm[proxy]`, pinned before 1.107.0, which was reported
 *   compromised), one uvicorn worker, a wildcard `openai/*` route to the simulator.
 */
import type { BenchProcess } from "./processes.ts";
import { commandOutput, freePort, watchExit } from "./processes.ts";
import type { Endpoint } from "./workload.ts";

export type PeerName = "portkey" | "litellm";
export const PEERS: readonly PeerName[] = ["portkey", "litellm"];

export const PORTKEY_VERSION = "1.15.2";
export const LITELLM_VERSION = "1.74.15.post2";

export interface StartedPeer {
  process: BenchProcess;
  endpoint: Endpoint;
  version: string;
}

export type PeerOutcome = { ok: StartedPeer } | { skipped: string };

/** Node preload forcing a peer's listener onto 127.0.0.1 (Portkey's start script has no host option). */
export const LOOPBACK_PRELOAD = new URL("./loopback_listen.mjs", import.meta.url).href;

const STDERR_KEEP = 4000;
const START_TIMEOUT_MS = 90_000;

async function run(cmd: string, args: string[], cwd: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
      .output();
    if (out.success) return undefined;
    const text = new TextDecoder().decode(out.stderr).trim() ||
      new TextDecoder().decode(out.stdout).trim();
    return `${cmd} exited ${out.code}: ${text.slice(-400)}`;
  } catch (error) {
    return `${cmd} could not run: ${(error as Error).message}`;
  }
}

/**
 * Starts `cmd args` pinned to `cpu` and waits until `readyUrl` answers (any HTTP status).
 * Resolves a BenchProcess (stdout and stderr kept, tail only), or a reason it did not start.
 */
async function startPinned(
  name: string,
  cmd: string,
  args: string[],
  options: { cpu: number; cwd: string; readyUrl: string; env?: Record<string, string> },
): Promise<BenchProcess | string> {
  const child = new Deno.Command("taskset", {
    args: ["-c", String(options.cpu), cmd, ...args],
    cwd: options.cwd,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    ...(options.env ? { env: options.env } : {}),
  }).spawn();
  let output = "";
  const keep = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      output = (output + decoder.decode(chunk, { stream: true })).slice(-STDERR_KEEP);
    }
  };
  void keep(child.stdout).catch(() => {});
  void keep(child.stderr).catch(() => {});
  const { exited, stop } = watchExit(child);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && !exited()) {
    try {
      const res = await fetch(options.readyUrl, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      return {
        name,
        pid: child.pid,
        hello: {},
        nextLine: () => Promise.resolve(undefined),
        stderrTail: () => output,
        stop,
      };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  await stop();
  return `${name} did not start within ${START_TIMEOUT_MS / 1000} s: ${
    output.trim().slice(-600) || "no output"
  }`;
}

async function startPortkey(
  dir: string,
  simV1: string,
  cpu: number,
  log: (msg: string) => void,
): Promise<PeerOutcome> {
  if ((await commandOutput("node", ["--version"])) === undefined) {
    return { skipped: "Node.js (`node`) is not installed" };
  }
  const prefix = `${dir}/portkey`;
  const script = `${prefix}/node_modules/@portkey-ai/gateway/build/start-server.js`;
  await Deno.mkdir(prefix, { recursive: true });
  // Started again for the production-shaped scenarios: installed once per run.
  const installed = await Deno.stat(script).then((s) => s.isFile, () => false);
  if (!installed) log(`portkey: npm install @portkey-ai/gateway@${PORTKEY_VERSION} into ${prefix}`);
  const failed = installed ? undefined : await run("npm", [
    "install",
    "--prefix",
    prefix,
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    `@portkey-ai/gateway@${PORTKEY_VERSION}`,
  ], prefix);
  if (failed !== undefined) return { skipped: `install failed (${failed})` };
  const port = freePort();
  const started = await startPinned("portkey", "node", [
    `--import=${LOOPBACK_PRELOAD}`,
    script,
    `--port=${port}`,
    "--headless",
  ], { cpu, cwd: prefix, readyUrl: `http://127.0.0.1:${port}/` });
  if (typeof started === "string") return { skipped: started };
  return {
    ok: {
      process: started,
      version: PORTKEY_VERSION,
      endpoint: {
        base: `http://127.0.0.1:${port}`,
        key: "bench",
        catalog: false,
        headers: { "x-portkey-provider": "openai", "x-portkey-custom-host": simV1 },
      },
    },
  };
}

async function startLitellm(
  dir: string,
  simV1: string,
  cpu: number,
  log: (msg: string) => void,
): Promise<PeerOutcome> {
  const venv = `${dir}/litellm-venv`;
  const python = (await commandOutput("python3", ["--version"])) !== undefined
    ? "python3"
    : undefined;
  if (python === undefined) return { skipped: "Python 3 (`python3`) is not installed" };
  // Started again for the production-shaped scenarios: installed once per run.
  const installed = await Deno.stat(`${venv}/bin/litellm`).then((s) => s.isFile, () => false);
  if (!installed) {
    log(`litellm: python3 -m venv ${venv}; pip install litellm[proxy]==${LITELLM_VERSION}`);
    const venvFailed = await run(python, ["-m", "venv", venv], dir);
    if (venvFailed !== undefined) return { skipped: `venv failed (${venvFailed})` };
    const pipFailed = await run(`${venv}/bin/pip`, [
      "install",
      "--quiet",
      "--disable-pip-version-check",
      `litellm[proxy]==${LITELLM_VERSION}`,
    ], dir);
    if (pipFailed !== undefined) return { skipped: `install failed (${pipFailed})` };
  }
  const config = `${dir}/litellm.yaml`;
  // A wildcard route: every model name goes to the simulator as an OpenAI model of that name.
  await Deno.writeTextFile(
    config,
    [
      "model_list:",
      '  - model_name: "*"',
      "    litellm_params:",
      '      model: "openai/*"',
      `      api_base: "${simV1}"`,
      '      api_key: "bench"',
      "",
    ].join("\n"),
  );
  const port = freePort();
  const started = await startPinned("litellm", `${venv}/bin/litellm`, [
    "--config",
    config,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--num_workers",
    "1",
  ], {
    cpu,
    cwd: dir,
    readyUrl: `http://127.0.0.1:${port}/health/liveliness`,
    // Quiet logs, no usage telemetry sent anywhere.
    env: { LITELLM_LOG: "ERROR", TELEMETRY: "False" },
  });
  if (typeof started === "string") return { skipped: started };
  return {
    ok: {
      process: started,
      version: LITELLM_VERSION,
      endpoint: { base: `http://127.0.0.1:${port}`, key: "bench", catalog: false },
    },
  };
}

/** Installs and starts one peer in `dir` (the run's temp dir), pinned to `cpu`. */
export function startPeer(
  name: PeerName,
  options: { dir: string; simV1: string; cpu: number; log: (msg: string) => void },
): Promise<PeerOutcome> {
  return name === "portkey"
    ? startPortkey(options.dir, options.simV1, options.cpu, options.log)
    : startLitellm(options.dir, options.simV1, options.cpu, options.log);
}
