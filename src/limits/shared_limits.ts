/**
 * The instance's limits shared by every isolate of the process: the gate's counts and holds
 * (`shared_counters.ts`) and the transcription slots (`shared_semaphore.ts`), over one table
 * (`shared_table.ts`) that the primary creates and hands to each `SOVRA_WORKERS` isolate at
 * start. A single isolate uses the same table, made for itself.
 */
import { SharedTable } from "./shared_table.ts";
import { SharedCounters, SWEEP_MS } from "./shared_counters.ts";
import { SharedSemaphore } from "./shared_semaphore.ts";

export interface SharedLimits {
  /** The table's buffer, to hand to another isolate. */
  readonly buffer: SharedArrayBuffer;
  readonly counters: SharedCounters;
  readonly transcriptions: SharedSemaphore;
  /** Stops the sweep timer (at close). */
  stop(): void;
}

export interface SharedLimitsOptions {
  /** Another isolate's table (its buffer); absent: a new one. */
  buffer?: SharedArrayBuffer | undefined;
  /** The isolate that reclaims free slots (one per process: the primary). */
  primary: boolean;
  /** A name unused this long is unpinned (> the oldest gate snapshot still served). */
  evictAfterMs: number;
  transcriptionSlots: number;
  /** A bucket of the table filled up: its further names count together (logged once). */
  onOverflow?: (bucket: number) => void;
}

export function createSharedLimits(options: SharedLimitsOptions): SharedLimits {
  const table = options.buffer ? SharedTable.attach(options.buffer) : SharedTable.create();
  const counters = new SharedCounters(table, options.evictAfterMs, options.onOverflow);
  const timer = setInterval(() => counters.sweep(options.primary), SWEEP_MS);
  Deno.unrefTimer(timer);
  return {
    buffer: table.buffer,
    counters,
    transcriptions: new SharedSemaphore(table.words, options.transcriptionSlots),
    stop: () => clearInterval(timer),
  };
}
