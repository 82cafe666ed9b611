/**
 * Open-loop load shaped like production (the `prod-stream` / `prod-non-stream` scenarios):
 * requests arrive at a fixed rate whatever earlier ones did, against an upstream that takes
 * hundreds of milliseconds to answer, so about `rate × answer time` requests are open at once
 * (1,000 by default). Request i is due at start + i / rate; its latency and time to first
 * body byte run from that scheduled time, so a stalled proxy is not hidden by a generator
 * that waited for it.
 *
 *   deno run -A scripts/bench/production_load.ts --spec '{"url","headers","body"}' \
 *     --rate 730 --warmup 3 --duration 10 [--timeout-ms 30000]
 *
 * The first `--warmup` seconds fill the proxy to its steady number of open requests; then a
 * window of `--duration` seconds is measured. Prints one JSON line per event on stdout:
 * `{"event":"start"}` when the window begins (the runner reads the proxy's CPU and starts
 * sampling its memory), `{"event":"end", chunks, meanOpen, maxOpen}` when it ends (SSE events
 * received and requests open, sampled every 100 ms, inside the window), then, once every
 * request scheduled inside the window has finished, `{"event":"done", ...ProductionResult}`.
 */
import { parseArgs } from "node:util";
import { type LatencySummary, summarise } from "./latency_stats.ts";
import { countEvents } from "./spread_streams.ts";
import type { RequestSpec } from "./workload.ts";

/** What the window saw: the figures the runner divides the proxy's CPU and memory by. */
export interface ProductionWindow {
  /** SSE events (`data:` lines) received inside the window, any request's. */
  chunks: number;
  /** Requests open (sent, body not read to its end), sampled every 100 ms in the window. */
  meanOpen: number;
  maxOpen: number;
}

export interface ProductionResult extends ProductionWindow {
  rate: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Requests scheduled inside the window (`rate × duration`). */
  sent: number;
  ok: number;
  errors: number;
  /** Scheduled send → last body byte, requests scheduled in the window. */
  latency: LatencySummary;
  /** Scheduled send → first body byte (for a stream the upstream's first chunk). */
  ttfb: LatencySummary;
  /** How late the generator fired the requests (its own timer jitter and load). */
  sendLag: LatencySummary;
}

const DONE = new TextEncoder().encode("[DONE]");
const SAMPLE_MS = 100;

/** Whether `bytes` ends with `[DONE]` and SSE blank lines (the last read of a stream). */
export function endsWithDone(bytes: Uint8Array): boolean {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  if (end < DONE.length) return false;
  for (let i = 0; i < DONE.length; i++) {
    if (bytes[end - DONE.length + i] !== DONE[i]) return false;
  }
  return true;
}

export async function runProduction(
  spec: RequestSpec,
  options: {
    rate: number;
    warmupSeconds: number;
    durationSeconds: number;
    timeoutMs: number;
    /** Whether a complete answer must end with `[DONE]` (a stream). */
    stream: boolean;
    onStart?: () => void;
    onEnd?: (window: ProductionWindow) => void;
  },
): Promise<ProductionResult> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 4096 });
  const interval = 1000 / options.rate;
  const warmupCount = Math.round(options.rate * options.warmupSeconds);
  const total = warmupCount + Math.round(options.rate * options.durationSeconds);
  const start = performance.now() + 20;
  const windowStart = start + options.warmupSeconds * 1000;
  const windowEnd = windowStart + options.durationSeconds * 1000;
  const latency: number[] = [];
  const ttfb: number[] = [];
  const lag: number[] = [];
  let ok = 0;
  let errors = 0;
  let chunks = 0;
  let open = 0;
  const pending = new Set<Promise<void>>();

  const fire = (index: number, scheduled: number) => {
    const measured = index >= warmupCount;
    const sentAt = performance.now();
    open++;
    const done = (async () => {
      let success = false;
      let first = NaN;
      try {
        const res = await fetch(spec.url, {
          method: "POST",
          headers: spec.headers,
          body: spec.body,
          client,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        let lineStart = true;
        let last: Uint8Array | undefined;
        const reader = res.body?.getReader();
        if (reader) {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            const now = performance.now();
            if (Number.isNaN(first)) first = now;
            if (options.stream) {
              const [n, atStart] = countEvents(value, lineStart);
              lineStart = atStart;
              if (now >= windowStart && now < windowEnd) chunks += n;
            }
            last = value;
          }
        }
        success = res.status === 200 && (!options.stream || (last !== undefined &&
          endsWithDone(last)));
      } catch {
        success = false;
      }
      const end = performance.now();
      open--;
      if (!measured) return;
      if (success) ok++;
      else errors++;
      latency.push(end - scheduled);
      if (success) ttfb.push(first - scheduled);
      lag.push(sentAt - scheduled);
    })();
    pending.add(done);
    done.finally(() => pending.delete(done));
  };

  // Open requests, sampled in the window; the window's start and end events.
  const openSamples: number[] = [];
  let windowReported = false;
  const sampler = setInterval(() => {
    const now = performance.now();
    if (now >= windowStart && now < windowEnd) openSamples.push(open);
  }, SAMPLE_MS);
  const startTimer = setTimeout(() => options.onStart?.(), windowStart - performance.now());
  const reportWindow = (): ProductionWindow => {
    const window = {
      chunks,
      meanOpen: openSamples.length === 0
        ? 0
        : openSamples.reduce((a, b) => a + b, 0) / openSamples.length,
      maxOpen: openSamples.length === 0 ? 0 : Math.max(...openSamples),
    };
    if (!windowReported) {
      windowReported = true;
      options.onEnd?.(window);
    }
    return window;
  };
  const endTimer = setTimeout(reportWindow, windowEnd - performance.now());

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
  // The window closes before the last requests are answered; wait for it, then for them.
  const untilEnd = windowEnd - performance.now();
  if (untilEnd > 0) await new Promise((resolve) => setTimeout(resolve, untilEnd));
  clearTimeout(endTimer);
  const window = reportWindow();
  clearInterval(sampler);
  clearTimeout(startTimer);
  await Promise.all([...pending]);
  client.close();
  return {
    ...window,
    rate: options.rate,
    warmupSeconds: options.warmupSeconds,
    durationSeconds: options.durationSeconds,
    sent: total - warmupCount,
    ok,
    errors,
    latency: summarise(latency),
    ttfb: summarise(ttfb),
    sendLag: summarise(lag),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      spec: { type: "string" },
      rate: { type: "string", default: "730" },
      warmup: { type: "string", default: "3" },
      duration: { type: "string", default: "10" },
      "timeout-ms": { type: "string", default: "30000" },
      stream: { type: "boolean", default: false },
    },
  });
  if (values.spec === undefined) {
    console.error("Missing --spec (a JSON request spec).");
    Deno.exit(2);
  }
  const result = await runProduction(JSON.parse(values.spec) as RequestSpec, {
    rate: Number(values.rate),
    warmupSeconds: Number(values.warmup),
    durationSeconds: Number(values.duration),
    timeoutMs: Number(values["timeout-ms"]),
    stream: values.stream,
    onStart: () => console.log(JSON.stringify({ event: "start" })),
    onEnd: (window) => console.log(JSON.stringify({ event: "end", ...window })),
  });
  console.log(JSON.stringify({ event: "done", ...result }));
}
