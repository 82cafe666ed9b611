/**
 * Open-loop paced load generator (what wrk2 does, which Debian does not ship). Request i is
 * due at start + i / rate whatever happened to earlier ones; its latency runs from that
 * scheduled time to the last byte of the body, so a stalled server is not hidden by a
 * generator that waited for it (no coordinated omission). Keep-alive `fetch` with a pool of
 * `--connections` idle connections; more open when more requests are in flight.
 *
 *   deno run -A scripts/bench/paced_load.ts --spec '{"url","headers","body"}' \
 *     --rate 500 --duration 10 [--warmup 1] [--connections 32]
 *
 * Prints one JSON line (PacedResult) on stdout.
 */
import { parseArgs } from "node:util";
import { type LatencySummary, summarise } from "./latency_stats.ts";
import type { RequestSpec } from "./workload.ts";

export interface PacedResult {
  rate: number;
  durationSeconds: number;
  /** Measured requests (the warm-up excluded). */
  sent: number;
  ok: number;
  errors: number;
  /** Scheduled send → last byte: the figure to report. */
  latency: LatencySummary;
  /** Actual send → last byte. */
  service: LatencySummary;
  /** Scheduled send → first body byte (time to first token for a stream). */
  ttfb: LatencySummary;
  /** How late the generator itself fired requests (its own timer jitter). */
  sendLag: LatencySummary;
  /** Most requests in flight at once. */
  maxInFlight: number;
}

const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Calls `fire(i, due)` for i = 0 … total − 1 at `start + i × interval` (ms, `performance.now()`),
 * late ones at once: whatever earlier requests did (an open loop).
 */
export async function pace(
  start: number,
  interval: number,
  total: number,
  fire: (index: number, due: number) => void,
): Promise<void> {
  let index = 0;
  while (index < total) {
    const now = performance.now();
    while (index < total && start + index * interval <= now) {
      fire(index, start + index * interval);
      index++;
    }
    const wait = start + index * interval - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

export async function runPaced(
  spec: RequestSpec,
  options: { rate: number; durationSeconds: number; warmupSeconds: number; connections: number },
): Promise<PacedResult> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: options.connections });
  const interval = 1000 / options.rate;
  const warmupCount = Math.round(options.rate * options.warmupSeconds);
  const total = warmupCount + Math.round(options.rate * options.durationSeconds);
  const latency: number[] = [];
  const service: number[] = [];
  const ttfb: number[] = [];
  const lag: number[] = [];
  let ok = 0;
  let errors = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const pending = new Set<Promise<void>>();

  const fire = (index: number, scheduled: number) => {
    const measured = index >= warmupCount;
    const sentAt = performance.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const done = (async () => {
      let success = false;
      let first = NaN;
      try {
        const res = await fetch(spec.url, {
          method: "POST",
          headers: spec.headers,
          body: spec.body,
          client,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        if (res.body) {
          for await (const _chunk of res.body) {
            if (Number.isNaN(first)) first = performance.now();
          }
        }
        success = res.status === 200;
      } catch {
        success = false;
      }
      const end = performance.now();
      inFlight--;
      if (!measured) return;
      if (success) ok++;
      else errors++;
      latency.push(end - scheduled);
      service.push(end - sentAt);
      if (success) ttfb.push(first - scheduled);
      lag.push(sentAt - scheduled);
    })();
    pending.add(done);
    done.finally(() => pending.delete(done));
  };

  await pace(performance.now() + 20, interval, total, fire);
  await Promise.all([...pending]);
  client.close();
  return {
    rate: options.rate,
    durationSeconds: options.durationSeconds,
    sent: total - warmupCount,
    ok,
    errors,
    latency: summarise(latency),
    service: summarise(service),
    ttfb: summarise(ttfb),
    sendLag: summarise(lag),
    maxInFlight,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      spec: { type: "string" },
      rate: { type: "string", default: "500" },
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "1" },
      connections: { type: "string", default: "32" },
    },
  });
  if (values.spec === undefined) {
    console.error("Missing --spec (a JSON request spec).");
    Deno.exit(2);
  }
  const result = await runPaced(JSON.parse(values.spec) as RequestSpec, {
    rate: Number(values.rate),
    durationSeconds: Number(values.duration),
    warmupSeconds: Number(values.warmup),
    connections: Number(values.connections),
  });
  console.log(JSON.stringify(result));
}
