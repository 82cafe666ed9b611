/**
 * Event-loop delay: a timer that should fire every `intervalMs` reports how late it fired.
 * Unref'd, so it never keeps the process alive.
 */
export class EventLoopProbe {
  readonly #timer: number;

  constructor(intervalMs: number, observe: (delaySeconds: number) => void) {
    let expected = performance.now() + intervalMs;
    this.#timer = Number(setInterval(() => {
      const now = performance.now();
      observe(Math.max(0, now - expected) / 1000);
      expected = now + intervalMs;
    }, intervalMs));
    Deno.unrefTimer(this.#timer);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
