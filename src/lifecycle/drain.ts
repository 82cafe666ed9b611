/**
 * A graceful drain: readiness turns unready; after `noticeMs` (time for a load balancer's
 * probe to notice) the listener stops accepting; open requests and streams get up to `drainMs`
 * to finish; whatever stream is still open then is cut (and settled as such by its pipeline).
 * The caller then flushes settles and closes the store.
 */
import type { Logger } from "../log.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { delay } from "../util/async.ts";

export interface DrainOptions {
  lifecycle: Lifecycle;
  log: Logger;
  noticeMs: number;
  drainMs: number;
  /** Stops accepting; resolves when every request in flight has ended. */
  stopAccepting: () => Promise<void>;
  /** How long in-flight requests may take to end after the streams were cut. */
  afterCutMs?: number;
}

export interface DrainResult {
  /** Streams cut because the drain time ran out. */
  cut: number;
  /** True when every request ended by itself. */
  clean: boolean;
}

/** True when `promise` settles within `ms`; the timer is cleared either way. */
async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const timedOut = delay(ms, { signal: timer.signal }).then(() => false, () => false);
  const ended = await Promise.race([promise.then(() => true), timedOut]);
  timer.abort();
  return ended;
}

export async function drain(options: DrainOptions): Promise<DrainResult> {
  const { lifecycle, log } = options;
  lifecycle.startDrain();
  log.info("draining: readiness is unready", {
    notice_ms: options.noticeMs,
    drain_ms: options.drainMs,
    open_streams: lifecycle.openStreams,
  });
  if (options.noticeMs > 0) await delay(options.noticeMs);
  const stopped = options.stopAccepting();
  log.info("draining: no longer accepting", { open_streams: lifecycle.openStreams });
  if (await within(stopped, options.drainMs)) return { cut: 0, clean: true };
  const cut = lifecycle.cutStreams();
  log.warn("drain time ran out: open streams cut (billed for what was generated)", { cut });
  const ended = await within(stopped, options.afterCutMs ?? 5_000);
  if (!ended) log.warn("requests still in flight after the cut; closing anyway");
  return { cut, clean: false };
}
