/**
 * Child processes of the benchmark: Deno scripts pinned to one core with `taskset`, their
 * first stdout line read as JSON, stderr kept (tail only) for failure reports, memory read
 * from /proc.
 */

export interface BenchProcess {
  name: string;
  /** The Deno process id (taskset execs, so it is the child's own pid). */
  pid: number;
  /** The first stdout line, parsed. */
  hello: Record<string, unknown>;
  /** Further stdout lines, one promise per `nextLine()` call. */
  nextLine(): Promise<string | undefined>;
  stderrTail(): string;
  stop(): Promise<void>;
}

const STDERR_KEEP = 4000;

/**
 * Starts `deno run -A <script> <args>` pinned to `cpu` (a core, or a `taskset` list such as
 * `0-1` for every core: children inherit the runner's own pinning otherwise); resolves once
 * it printed a line.
 */
export async function spawnDeno(
  name: string,
  script: string,
  args: string[],
  options: { cpu: number | string; config: string; v8Flags?: string[]; denoFlags?: string[] },
): Promise<BenchProcess> {
  const child = new Deno.Command("taskset", {
    args: [
      "-c",
      String(options.cpu),
      Deno.execPath(),
      "run",
      "-A",
      `--config=${options.config}`,
      ...(options.denoFlags ?? []),
      ...(options.v8Flags && options.v8Flags.length > 0
        ? [`--v8-flags=${options.v8Flags.join(",")}`]
        : []),
      script,
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();

  const stderrTail = keepTail(child.stderr);

  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const nextLine = async (): Promise<string | undefined> => {
    for (;;) {
      const newline = buffer.indexOf("\n");
      if (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        return line;
      }
      const { value, done } = await lines.read();
      if (done) return undefined;
      buffer += value;
    }
  };

  const exit = watchExit(child);
  const status = exit.status;
  let startTimer: ReturnType<typeof setTimeout> | undefined;
  const first = await Promise.race([
    nextLine(),
    status.then(() => undefined),
    new Promise<undefined>((resolve) => {
      startTimer = setTimeout(() => resolve(undefined), 60_000);
    }),
  ]);
  clearTimeout(startTimer);
  const stop = async () => {
    await exit.stop();
    await lines.cancel().catch(() => {});
  };
  if (first === undefined) {
    await stop();
    throw new Error(`${name} did not start: ${stderrTail().slice(-1500)}`);
  }
  return {
    name,
    pid: child.pid,
    hello: first.startsWith("{") ? JSON.parse(first) : { line: first },
    nextLine,
    stderrTail,
    stop,
  };
}

/** Reads `stream` to its end in the background, keeping its last `keep` characters. */
export function keepTail(stream: ReadableStream<Uint8Array>, keep = STDERR_KEEP): () => string {
  let tail = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-keep);
    }
  })().catch(() => {});
  return () => tail;
}

/** A child's exit, watched: whether it has exited, and a stop (SIGTERM, SIGKILL after 5 s). */
export function watchExit(child: Deno.ChildProcess): {
  status: Promise<Deno.CommandStatus>;
  exited: () => boolean;
  stop: () => Promise<void>;
} {
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const stop = async () => {
    if (exited) return;
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    const timer = setTimeout(() => {
      try {
        if (!exited) child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, 5_000);
    await status;
    clearTimeout(timer);
  };
  return { status, exited: () => exited, stop };
}

export interface MemoryStatus {
  /** Current resident set size, KiB. */
  rssKb: number;
  /** Peak resident set size (VmHWM), KiB. */
  hwmKb: number;
}

/** Parses the VmRSS and VmHWM lines of /proc/<pid>/status. */
export function parseProcStatus(text: string): MemoryStatus {
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text);
    return match ? Number(match[1]) : NaN;
  };
  return { rssKb: field("VmRSS"), hwmKb: field("VmHWM") };
}

export async function readMemory(pid: number): Promise<MemoryStatus> {
  return parseProcStatus(await Deno.readTextFile(`/proc/${pid}/status`));
}

/** Parses utime + stime (clock ticks) from /proc/<pid>/stat (fields after the comm). */
export function parseStatTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the comm: state is field 3, so utime (14) and stime (15) are at index 11 and 12.
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU time (user + system, every thread) the process has used so far, in seconds. */
export async function readCpuSeconds(pid: number, ticksPerSecond = 100): Promise<number> {
  return parseStatTicks(await Deno.readTextFile(`/proc/${pid}/stat`)) / ticksPerSecond;
}

/** Runs a command and returns its stdout, or undefined when it fails or is missing. */
export async function commandOutput(cmd: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output();
    return out.success ? new TextDecoder().decode(out.stdout) : undefined;
  } catch {
    return undefined;
  }
}

/** The threads of a process by what they do, from their names (`/proc/<pid>/task/<tid>/comm`). */
export type ThreadGroup = "main" | "workers" | "kv" | "v8" | "io";

/**
 * Which group a thread is in: the main isolate's thread (its id is the pid), a `SOVRA_WORKERS`
 * isolate (`worker-N`), a Deno KV writer (`sw-N`), V8's helpers (`V8 DefaultWorke`: GC and
 * compilation), and everything else (tokio's runtime and blocking threads: sockets, files).
 */
export function threadGroup(pid: number, tid: number, comm: string): ThreadGroup {
  if (tid === pid) return "main";
  if (comm.startsWith("worker-")) return "workers";
  if (comm.startsWith("sw-")) return "kv";
  if (comm.startsWith("V8 ")) return "v8";
  return "io";
}

/** CPU seconds so far per thread group (threads that exited are no longer counted). */
export async function readThreadCpuSeconds(
  pid: number,
  ticksPerSecond = 100,
): Promise<Record<ThreadGroup, number>> {
  const out: Record<ThreadGroup, number> = { main: 0, workers: 0, kv: 0, v8: 0, io: 0 };
  for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
    const tid = Number(task.name);
    try {
      const stat = await Deno.readTextFile(`/proc/${pid}/task/${tid}/stat`);
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      out[threadGroup(pid, tid, comm)] += parseStatTicks(stat) / ticksPerSecond;
    } catch { /* the thread ended meanwhile */ }
  }
  return out;
}

/** A free port on 127.0.0.1 (bound, read, released). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
