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

/** The wrk Lua script that replays `spec` and reports in JSON. */
export function wrkScript(spec: RequestSpec): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${luaString(spec.body)}`];
  for (const [name, value] of Object.entries(spec.headers)) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
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
        "-c",
        String(options.cpu),
        "wrk",
        "-t1",
        `-c${options.connections}`,
        `-d${options.durationSeconds}s`,
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
