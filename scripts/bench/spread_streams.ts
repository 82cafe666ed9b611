/**
 * Many concurrent streams whose chunks arrive spread out, as production streams do (the
 * upstream model `bench+slow-20+chunks-50`: 20 ms between chunks). At zero upstream latency a
 * proxy reads many events per socket read and the per-event cost hides; here almost every
 * event is its own read, write and wake-up.
 *
 *   deno run -A scripts/bench/spread_streams.ts --spec '{"url","headers","body"}' \
 *     --streams 500 --ramp 2 --duration 10
 *
 * Keeps `--streams` streams open (a finished stream is replaced at once), started evenly over
 * `--ramp` seconds so their chunks do not arrive in lockstep. Prints `{"event":"start"}` when
 * the measured window begins (after the ramp) and, when it ends,
 * `{"event":"done","chunks","completed","errors","seconds"}`: SSE events received and streams
 * read to `[DONE]` inside the window.
 */
import { parseArgs } from "node:util";
import type { RequestSpec } from "./workload.ts";

export interface SpreadResult {
  /** Streams kept open at once. */
  streams: number;
  /** SSE events (`data:` lines) the clients received in the window. */
  chunks: number;
  /** Streams read to `[DONE]` in the window. */
  completed: number;
  errors: number;
  seconds: number;
}

const DATA = new TextEncoder().encode("data:");

/** Occurrences of `data:` at the start of a line in `bytes` (`carry`: was the last byte `\n`). */
export function countEvents(bytes: Uint8Array, lineStart: boolean): [number, boolean] {
  let count = 0;
  let atStart = lineStart;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (atStart && byte === DATA[0] && bytes[i + 1] === DATA[1] && bytes[i + 2] === DATA[2]) {
      count++;
    }
    atStart = byte === 0x0a;
  }
  return [count, atStart];
}

export async function runSpread(
  spec: RequestSpec,
  options: {
    streams: number;
    rampSeconds: number;
    durationSeconds: number;
    /** When the measured window begins and ends (the runner reads the proxy's CPU then). */
    onStart?: () => void;
    onEnd?: (result: SpreadResult) => void;
  },
): Promise<SpreadResult> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: options.streams });
  const start = performance.now();
  const windowStart = start + options.rampSeconds * 1000;
  const windowEnd = windowStart + options.durationSeconds * 1000;
  let chunks = 0;
  let completed = 0;
  let errors = 0;
  const inWindow = () => {
    const now = performance.now();
    return now >= windowStart && now < windowEnd;
  };

  const oneStream = async () => {
    try {
      const res = await fetch(spec.url, {
        method: "POST",
        headers: spec.headers,
        body: spec.body,
        client,
        signal: AbortSignal.timeout(60_000),
      });
      if (res.status !== 200 || res.body === null) {
        await res.body?.cancel();
        if (inWindow()) errors++;
        return;
      }
      let lineStart = true;
      let last = "";
      for await (const bytes of res.body) {
        const [n, atStart] = countEvents(bytes, lineStart);
        lineStart = atStart;
        if (inWindow()) chunks += n;
        last = new TextDecoder().decode(bytes.subarray(Math.max(0, bytes.length - 16)));
      }
      if (!inWindow()) return;
      if (last.includes("[DONE]")) completed++;
      else errors++;
    } catch {
      if (inWindow()) errors++;
    }
  };

  const lane = async (index: number) => {
    await new Promise((resolve) =>
      setTimeout(resolve, (index / options.streams) * options.rampSeconds * 1000)
    );
    while (performance.now() < windowEnd) await oneStream();
  };
  const lanes = Array.from({ length: options.streams }, (_, i) => lane(i));
  const startTimer = setTimeout(() => options.onStart?.(), options.rampSeconds * 1000);
  const endOfWindow = new Promise((resolve) => setTimeout(resolve, windowEnd - start));
  await endOfWindow;
  const result = {
    streams: options.streams,
    chunks,
    completed,
    errors,
    seconds: options.durationSeconds,
  };
  options.onEnd?.(result);
  // Streams still open finish outside the window; they are not counted.
  await Promise.all(lanes);
  clearTimeout(startTimer);
  client.close();
  return result;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      spec: { type: "string" },
      streams: { type: "string", default: "500" },
      ramp: { type: "string", default: "2" },
      duration: { type: "string", default: "10" },
    },
  });
  if (values.spec === undefined) {
    console.error("Missing --spec (a JSON request spec).");
    Deno.exit(2);
  }
  await runSpread(JSON.parse(values.spec) as RequestSpec, {
    streams: Number(values.streams),
    rampSeconds: Number(values.ramp),
    durationSeconds: Number(values.duration),
    onStart: () => console.log(JSON.stringify({ event: "start" })),
    onEnd: (result) => console.log(JSON.stringify({ event: "done", ...result })),
  });
}
