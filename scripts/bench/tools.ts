/**
 * What the benchmark needs from the machine: `taskset` (util-linux) to pin processes, wrk
 * for closed-loop load (installed from Debian's packages when missing, else the Deno
 * generator), nginx with its echo module for the production-shaped upstream (installed when
 * missing), and enough file descriptors for the open-streams measurement.
 */
import { commandOutput } from "./processes.ts";
import { ECHO_MODULE, nginxBinary } from "./production_upstream.ts";

export interface LoadTools {
  closed: "wrk" | "deno";
}

async function has(cmd: string): Promise<boolean> {
  return (await commandOutput("sh", ["-c", `command -v ${cmd}`])) !== undefined;
}

async function aptInstall(pkg: string, log: (msg: string) => void): Promise<boolean> {
  log(`installing ${pkg} (apt-get)`);
  const run = async (args: string[]) =>
    (await new Deno.Command("apt-get", { args, stdout: "null", stderr: "null" }).output()
      .catch(() => undefined))?.success === true;
  return await run(["update", "-qq"]) &&
    await run(["install", "-y", "-qq", ...pkg.split(" ")]);
}

/**
 * The production-shaped scenarios' upstream: Debian's nginx with the echo module
 * (production_upstream.ts), installed with apt-get when missing.
 */
export async function ensureNginxEcho(log: (msg: string) => void): Promise<void> {
  const module = await Deno.stat(ECHO_MODULE).then(() => true, () => false);
  if ((await nginxBinary()) !== undefined && module) return;
  if (!(await aptInstall("nginx-light libnginx-mod-http-echo", log))) {
    throw new Error(
      "The production-shaped scenarios need nginx and its echo module " +
        "(apt-get install nginx-light libnginx-mod-http-echo).",
    );
  }
}

export async function ensureLoadTools(
  options: { pinCpu: number; streams: number; log: (msg: string) => void },
): Promise<LoadTools> {
  if (!(await has("taskset")) && !(await aptInstall("util-linux", options.log))) {
    throw new Error("The benchmark needs 'taskset' (util-linux) to pin processes to cores.");
  }
  if (navigator.hardwareConcurrency < 2) {
    throw new Error("The benchmark needs at least 2 cores (proxy on one, load on the other).");
  }
  // The runner itself stays off the proxy's core.
  await commandOutput("taskset", ["-cp", String(options.pinCpu), String(Deno.pid)]);

  let closed: LoadTools["closed"] = "wrk";
  if (!(await has("wrk")) && !(await aptInstall("wrk", options.log) && await has("wrk"))) {
    options.log("wrk unavailable; closed-loop load falls back to the Deno generator");
    closed = "deno";
  }

  // Each open stream holds a client, a proxy and an upstream connection at once.
  const needed = options.streams * 4 + 1024;
  const soft = Number((await commandOutput("sh", ["-c", "ulimit -n"]))?.trim());
  if (Number.isFinite(soft) && soft < needed) {
    const hard = Number((await commandOutput("sh", ["-c", "ulimit -Hn"]))?.trim());
    const target = Number.isFinite(hard) ? Math.min(hard, needed) : needed;
    await commandOutput("prlimit", ["--pid", String(Deno.pid), `--nofile=${target}:${target}`]);
    options.log(`raised the open-file limit from ${soft} to ${target}`);
    if (target < needed) {
      options.log(`warning: ${target} open files may be too few for ${options.streams} streams`);
    }
  }
  return { closed };
}
