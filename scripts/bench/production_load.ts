/**
 * The first-byte probe of the production-shaped scenarios (`prod-stream` / `prod-non-stream`):
 * open-loop paced requests, beside wrk's load (wrk.ts `startWrkProduction`), against an upstream
 * that takes hundreds of milliseconds to answer. Request i is due at start + i / rate whatever
 * earlier ones did; its latency and time to first body byte run from that scheduled time, so a
 * stalled proxy is not hidden by a generator that waited for it (wrk's closed loop would be).
 *
 *   deno run -A scripts/bench/production_load.ts --spec '{"url","headers","body"}' \
 *     --rate 730 --warmup 3 --duration 10 [--timeout-ms 30000] [--stream]
 *     [--window-start UNIX_MS (instead of --warmup: the window starts then)]
 *
 * HTTP/1.1 keep-alive connections on plain sockets (lean_http.ts), one request at a time each,
 * opened as needed (cheaper per SSE event than `fetch`, on a load core that also runs wrk and the
 * upstream).
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
import { encodeRequest, LeanConnection } from "./lean_http.ts";
import { pace } from "./paced_load.ts";

/** What the window saw: the figures the runner divides the proxy's CPU and memory by. */
export interface ProductionWindow {
  /** SSE events (`data:` lines) received inside the window, any request's. */
  chunks: number;
  /** Answers completed in full inside the window (by when they ended, as wrk counts them). */
  windowCompleted: number;
  /** The SSE events of those answers. */
  windowCompletedEvents: number;
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

/** The last 16 bytes of `tail` followed by `bytes`. */
function joinTail(tail: Uint8Array, bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(tail.length + bytes.length);
  out.set(tail);
  out.set(bytes, tail.length);
  return out.slice(-16);
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
  const url = new URL(spec.url);
  const request = encodeRequest(url, spec.headers, spec.body);
  const hostname = url.hostname;
  const port = Number(url.port);
  /** Keep-alive connections not carrying a request now (a new one opens when none is idle). */
  const idle: LeanConnection[] = [];
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
  let windowCompleted = 0;
  let windowCompletedEvents = 0;
  let open = 0;
  const pending = new Set<Promise<void>>();

  const fire = (index: number, scheduled: number) => {
    const measured = index >= warmupCount;
    const sentAt = performance.now();
    open++;
    const done = (async () => {
      let success = false;
      let first = NaN;
      let events = 0;
      let lineStart = true;
      let tail: Uint8Array = new Uint8Array(0);
      let conn: LeanConnection | undefined;
      try {
        conn = idle.pop() ?? await LeanConnection.open(hostname, port);
        const res = await conn.request(request, (bytes) => {
          const now = performance.now();
          if (Number.isNaN(first)) first = now;
          if (!options.stream) return;
          const [n, atStart] = countEvents(bytes, lineStart);
          lineStart = atStart;
          events += n;
          if (now >= windowStart && now < windowEnd) chunks += n;
          tail = bytes.length >= 16 ? bytes.slice(-16) : joinTail(tail, bytes);
        }, options.timeoutMs);
        if (res.keepAlive && !conn.closed) idle.push(conn);
        success = res.status === 200 && (!options.stream || endsWithDone(tail));
      } catch {
        conn?.close();
        success = false;
      }
      const end = performance.now();
      open--;
      if (success && end >= windowStart && end < windowEnd) {
        windowCompleted++;
        windowCompletedEvents += events;
      }
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
      windowCompleted,
      windowCompletedEvents,
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

  await pace(start, interval, total, fire);
  // The window closes before the last requests are answered; wait for it, then for them.
  const untilEnd = windowEnd - performance.now();
  if (untilEnd > 0) await new Promise((resolve) => setTimeout(resolve, untilEnd));
  clearTimeout(endTimer);
  const window = reportWindow();
  clearInterval(sampler);
  clearTimeout(startTimer);
  await Promise.all([...pending]);
  for (const conn of idle) conn.close();
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
      "window-start": { type: "string" },
      stream: { type: "boolean", default: false },
    },
  });
  if (values.spec === undefined) {
    console.error("Missing --spec (a JSON request spec).");
    Deno.exit(2);
  }
  // `--window-start` (Unix ms) puts the window at a given time, beside another generator's.
  const windowStart = values["window-start"];
  const result = await runProduction(JSON.parse(values.spec) as RequestSpec, {
    rate: Number(values.rate),
    warmupSeconds: windowStart === undefined
      ? Number(values.warmup)
      : Math.max(0, (Number(windowStart) - Date.now() - 20) / 1000),
    durationSeconds: Number(values.duration),
    timeoutMs: Number(values["timeout-ms"]),
    stream: values.stream,
    onStart: () => console.log(JSON.stringify({ event: "start" })),
    onEnd: (window) => console.log(JSON.stringify({ event: "end", ...window })),
  });
  console.log(JSON.stringify({ event: "done", ...result }));
}
