/**
 * Many deadlines, one timer. A `setTimeout` per request and per connection state change cost
 * ~10 µs of CPU each in the non-stream profile (Deno 2.9's timers allocate a Node `Timeout`
 * and a closure each time); a deadline here is one `Set` entry, and a single interval checks
 * them all every `tick` (a tenth of the shortest deadline given, 10 ms to 1 s). A deadline
 * fires at most one tick late, which is fine for limits of seconds (header, idle and body
 * timeouts). Deleting a deadline costs no timer call either: the interval stops itself at the
 * first tick that finds nothing pending (stopping and restarting it for every request cost as
 * much as the timers it replaces). It is unref'd: what a deadline waits for (a socket read)
 * keeps the process alive, the sweep itself does not, and no test sanitizer sees it.
 */
export interface Deadline {
  /** `performance.now()` at which `fire` runs. */
  at: number;
  fire: () => void;
}

const MIN_TICK_MS = 10;
const MAX_TICK_MS = 1_000;

export function tickFor(ms: number): number {
  return Math.min(MAX_TICK_MS, Math.max(MIN_TICK_MS, Math.floor(ms / 10)));
}

export class DeadlineSweep {
  readonly #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #tick = MAX_TICK_MS;

  get size(): number {
    return this.#pending.size;
  }

  /** `fire` runs once, `ms` (plus at most one tick) from now, unless deleted first. */
  add(ms: number, fire: () => void): Deadline {
    const deadline = { at: performance.now() + ms, fire };
    this.#pending.add(deadline);
    this.#ensure(tickFor(ms));
    return deadline;
  }

  delete(deadline: Deadline | undefined): void {
    if (deadline === undefined) return;
    this.#pending.delete(deadline);
  }

  /** True while the interval runs (tests). */
  get running(): boolean {
    return this.#timer !== undefined;
  }

  #ensure(tick: number) {
    if (this.#timer !== undefined && tick >= this.#tick) return;
    this.#stop();
    this.#tick = tick;
    this.#timer = setInterval(() => this.#sweep(), tick);
    Deno.unrefTimer(this.#timer);
  }

  #stop() {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#tick = MAX_TICK_MS;
  }

  #sweep() {
    const now = performance.now();
    for (const deadline of this.#pending) {
      if (deadline.at > now) continue;
      this.#pending.delete(deadline);
      try {
        deadline.fire();
      } catch { /* a deadline's action must not stop the others */ }
    }
    if (this.#pending.size === 0) this.#stop();
  }
}
