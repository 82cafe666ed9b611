/**
 * Closed-loop load: `connections` workers, each sending the next request as soon as the
 * previous body has been read to the end. The runner uses wrk; this Deno generator is the
 * fallback when wrk cannot be installed (it is slower than wrk, so it caps lower).
 *
 *   deno run -A scripts/bench/closed_load.ts --spec '{"url","headers","body"}' \
 *     --connections 32 --duration 10
 *
 * Prints one JSON line (ClosedResult) on stdout.
 */
import { parseArgs } from "node:util";
import { summarise } from "./latency_stats.ts";
import type { RequestSpec } from "./workload.ts";

export interface ClosedResult {
  tool: "wrk" | "deno";
  requestsPerSecond: number;
  requests: number;
  /** Non-2xx answers, socket errors and timeouts. */
  errors: number;
  p50Ms: number;
  p99Ms: number;
}

export async function runClosed(
  spec: RequestSpec,
  options: { connections: number; durationSeconds: number },
): Promise<ClosedResult> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: options.connections });
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const deadline = start + options.durationSeconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const sentAt = performance.now();
      try {
        const res = await fetch(spec.url, {
          method: "POST",
          headers: spec.headers,
          body: spec.body,
          client,
          signal: AbortSignal.timeout(15_000),
        });
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - sentAt);
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  const elapsed = (performance.now() - start) / 1000;
  client.close();
  const summary = summarise(latencies);
  return {
    tool: "deno",
    requestsPerSecond: latencies.length / elapsed,
    requests: latencies.length,
    errors,
    p50Ms: summary.p50,
    p99Ms: summary.p99,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      spec: { type: "string" },
      connections: { type: "string", default: "32" },
      duration: { type: "string", default: "10" },
    },
  });
  if (values.spec === undefined) {
    console.error("Missing --spec (a JSON request spec).");
    Deno.exit(2);
  }
  const result = await runClosed(JSON.parse(values.spec) as RequestSpec, {
    connections: Number(values.connections),
    durationSeconds: Number(values.duration),
  });
  console.log(JSON.stringify(result));
}
