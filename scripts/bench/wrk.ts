/**
 * wrk (Debian's package) as the closed-loop load generator. POST bodies need a Lua script;
 * the same script's `done()` prints the summary as one JSON line so nothing parses wrk's
 * human-readable report.
 */
import type { ClosedResult } from "./closed_load.ts";
import type { RequestSpec } from "./workload.ts";

const MARKER = "WRK_JSON ";

/** A Lua string literal for any text (decimal escapes for everything outside plain ASCII). */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of new TextEncoder().encode(text)) {
    const plain = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    out += plain ? String.fromCharCode(byte) : `\\${byte}`;
  }
  return out + '"';
}

/** The Lua lines that make wrk send `spec`'s method, body and headers. */
function requestLines(spec: RequestSpec): string[] {
  const lines = ['wrk.method = "POST"', `wrk.body = ${luaString(spec.body)}`];
  for (const [name, value] of Object.entries(spec.headers)) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
  return lines;
}

/** The wrk Lua script that replays `spec` and reports in JSON. */
export function wrkScript(spec: RequestSpec): string {
  const lines = requestLines(spec);
  lines.push(
    "done = function(summary, latency, requests)",
    "  local e = summary.errors",
    `  io.write(string.format('${MARKER}{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,` +
      `"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',`,
    "    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),",
    "    e.connect, e.read, e.write, e.status, e.timeout))",
    "end",
  );
  return lines.join("\n") + "\n";
}

interface WrkJson {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
}

/** Reads the JSON line `wrkScript`'s `done()` printed; undefined when it is missing. */
export function parseWrkOutput(stdout: string): ClosedResult | undefined {
  const line = stdout.split("\n").find((l) => l.startsWith(MARKER));
  if (line === undefined) return undefined;
  const raw = JSON.parse(line.slice(MARKER.length)) as WrkJson;
  const seconds = raw.duration_us / 1e6;
  return {
    tool: "wrk",
    requestsPerSecond: seconds > 0 ? raw.requests / seconds : 0,
    requests: raw.requests,
    errors: raw.connect + raw.read + raw.write + raw.status + raw.timeout,
    p50Ms: raw.p50_us / 1000,
    p99Ms: raw.p99_us / 1000,
  };
}

/** `taskset`'s arguments for one wrk thread pinned to `cpu` with `connections` for `seconds`. */
function wrkArgs(cpu: number, connections: number, seconds: number): string[] {
  return ["-c", String(cpu), "wrk", "-t1", `-c${connections}`, `-d${seconds}s`];
}

/** Runs wrk pinned to `cpu` with `connections` connections for `durationSeconds`. */
export async function runWrk(
  spec: RequestSpec,
  options: { connections: number; durationSeconds: number; cpu: number; scriptDir: string },
): Promise<ClosedResult> {
  const script = `${options.scriptDir}/bench_${crypto.randomUUID()}.lua`;
  await Deno.writeTextFile(script, wrkScript(spec));
  try {
    const output = await new Deno.Command("taskset", {
      args: [
        ...wrkArgs(options.cpu, options.connections, options.durationSeconds),
        "--timeout",
        "10s",
        "-s",
        script,
        spec.url,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const result = parseWrkOutput(stdout);
    if (!output.success || result === undefined) {
      const stderr = new TextDecoder().decode(output.stderr);
      throw new Error(`wrk failed (exit ${output.code}): ${stderr.slice(0, 500)}`);
    }
    return result;
  } finally {
    await Deno.remove(script).catch(() => {});
  }
}

const PROD_MARKER = "WRK_PROD ";

/** What wrk's production-shaped run reports (runWrkProduction). */
export interface WrkProductionResult {
  requests: number;
  durationSeconds: number;
  /** Mean response time over the whole run (request written → last byte), ms. */
  latencyMeanMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Socket errors, timeouts and non-2xx answers over the whole run. */
  errors: number;
  /** Answers completed in full inside the window (status 200; a stream up to `[DONE]`). */
  windowCompleted: number;
  /** SSE events (`data:` lines) of those answers. */
  windowEvents: number;
  /** Answers inside the window that were not complete 200s. */
  windowFailed: number;
}

/**
 * The wrk script of the production-shaped load: the connections' first requests spread over
 * `rampMs`, then each connection sends its next request a random 0–`maxDelayMs` ms after the
 * previous answer (arrivals stay spread evenly), and it counts the answers that end inside the
 * window [`windowStart`, `windowEnd`) (Unix seconds: wrk's Lua has no finer clock) and their SSE
 * events.
 */
export function wrkProductionScript(spec: RequestSpec): string {
  const lines = requestLines(spec);
  lines.push(
    "local threads = {}",
    "setup = function(thread) table.insert(threads, thread) end",
    "init = function(args)",
    "  ws = tonumber(args[1]); we = tonumber(args[2]); max_delay = tonumber(args[3])",
    '  stream = args[4] == "1"; connections = tonumber(args[5]); ramp = tonumber(args[6])',
    "  completed = 0; events = 0; failed = 0; delays = 0",
    "  math.randomseed(os.time())",
    "end",
    // wrk asks for a delay before every request, a connection's first one included: the first
    // `connections` calls spread the connections' first requests over `ramp` ms, so the load
    // starts in its steady state rather than as one burst whose streams all tick in step.
    "delay = function()",
    "  delays = delays + 1",
    "  if delays <= connections then return math.random(0, ramp) end",
    "  return math.random(0, max_delay)",
    "end",
    "response = function(status, headers, body)",
    "  local t = os.time()",
    "  if t < ws or t >= we then return end",
    '  if status == 200 and (not stream or string.find(body, "[DONE]", -24, true)) then',
    "    completed = completed + 1",
    "    if stream then",
    '      local _, n = string.gsub(body, "\\ndata:", "")',
    '      if string.sub(body, 1, 5) == "data:" then n = n + 1 end',
    "      events = events + n",
    "    end",
    "  else",
    "    failed = failed + 1",
    "  end",
    "end",
    "done = function(summary, latency, requests)",
    "  local c, e, f = 0, 0, 0",
    "  for _, t in ipairs(threads) do",
    '    c = c + t:get("completed"); e = e + t:get("events"); f = f + t:get("failed")',
    "  end",
    "  local x = summary.errors",
    `  io.write(string.format('${PROD_MARKER}{"requests":%d,"duration_us":%d,"mean_us":%.1f,` +
      `"p50_us":%d,"p99_us":%d,"errors":%d,"completed":%d,"events":%d,"failed":%d}\\n',`,
    "    summary.requests, summary.duration, latency.mean, latency:percentile(50),",
    "    latency:percentile(99), x.connect + x.read + x.write + x.status + x.timeout, c, e, f))",
    "end",
  );
  return lines.join("\n") + "\n";
}

/** Reads the line `wrkProductionScript`'s `done()` printed; undefined when it is missing. */
export function parseWrkProductionOutput(stdout: string): WrkProductionResult | undefined {
  const line = stdout.split("\n").find((l) => l.startsWith(PROD_MARKER));
  if (line === undefined) return undefined;
  const raw = JSON.parse(line.slice(PROD_MARKER.length)) as Record<string, number>;
  return {
    requests: raw.requests!,
    durationSeconds: raw.duration_us! / 1e6,
    latencyMeanMs: raw.mean_us! / 1000,
    latencyP50Ms: raw.p50_us! / 1000,
    latencyP99Ms: raw.p99_us! / 1000,
    errors: raw.errors!,
    windowCompleted: raw.completed!,
    windowEvents: raw.events!,
    windowFailed: raw.failed!,
  };
}

/**
 * Starts wrk pinned to `cpu` with the production-shaped script; resolves its pid at once and its
 * result when it ends (the runner reads wrk's CPU in between).
 */
export async function startWrkProduction(
  spec: RequestSpec,
  options: {
    connections: number;
    durationSeconds: number;
    cpu: number;
    scriptDir: string;
    stream: boolean;
    /** Unix seconds. */
    windowStart: number;
    windowEnd: number;
    maxDelayMs: number;
    /** The connections' first requests are spread over this long, ms. */
    rampMs: number;
  },
): Promise<{ pid: number; result: Promise<WrkProductionResult> }> {
  const script = `${options.scriptDir}/bench_prod_${crypto.randomUUID()}.lua`;
  await Deno.writeTextFile(script, wrkProductionScript(spec));
  const child = new Deno.Command("taskset", {
    args: [
      ...wrkArgs(options.cpu, options.connections, Math.ceil(options.durationSeconds)),
      "--timeout",
      "30s",
      "-s",
      script,
      spec.url,
      "--",
      String(options.windowStart),
      String(options.windowEnd),
      String(options.maxDelayMs),
      options.stream ? "1" : "0",
      String(options.connections),
      String(Math.round(options.rampMs)),
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const result = (async () => {
    try {
      const output = await child.output();
      const stdout = new TextDecoder().decode(output.stdout);
      const parsed = parseWrkProductionOutput(stdout);
      if (!output.success || parsed === undefined) {
        const stderr = new TextDecoder().decode(output.stderr);
        throw new Error(`wrk failed (exit ${output.code}): ${(stderr || stdout).slice(0, 500)}`);
      }
      return parsed;
    } finally {
      await Deno.remove(script).catch(() => {});
    }
  })();
  return { pid: child.pid, result };
}
