/**
 * Router pins, in memory with a time limit, so some requests keep the model of an earlier one:
 *
 * - tool loops and reasoning round trips: a continuation (it sends back an assistant turn
 *   with tool calls) stays on the model that made those calls, because tool-call and
 *   reasoning signatures are provider-scoped; keyed by the tool-call ids (1 hour);
 * - sticky end-users: with the policy's `sticky_seconds`, the same `user` keeps its model for
 *   that long after its last success, so provider prompt caches stay warm.
 *
 * A pin is written only after a success, holds ids only (no content) and is only a
 * preference: the decision drops it when its model has left the pool or cannot serve.
 * Per instance: a second instance routes a continuation afresh.
 */
export const TOOL_PIN_MS = 3_600_000;
const MAX_PINS = 50_000;

interface Pin {
  model: string;
  expires: number;
}

export class RouterPins {
  readonly #pins = new Map<string, Pin>();

  constructor(readonly now: () => number = Date.now) {}

  #get(key: string): string | undefined {
    const pin = this.#pins.get(key);
    if (!pin) return undefined;
    if (pin.expires <= this.now()) {
      this.#pins.delete(key);
      return undefined;
    }
    return pin.model;
  }

  #set(key: string, model: string, ms: number): void {
    if (this.#pins.size >= MAX_PINS) {
      // Drop the oldest tenth (Map keeps insertion order).
      let drop = Math.ceil(MAX_PINS / 10);
      for (const k of this.#pins.keys()) {
        this.#pins.delete(k);
        if (--drop === 0) break;
      }
    }
    this.#pins.delete(key);
    this.#pins.set(key, { model, expires: this.now() + ms });
  }

  toolLoop(org: string, policy: string, callIds: readonly string[]): string | undefined {
    for (const id of callIds) {
      const model = this.#get(`t\u0000${org}\u0000${policy}\u0000${id}`);
      if (model) return model;
    }
    return undefined;
  }

  pinToolCalls(org: string, policy: string, callIds: readonly string[], model: string): void {
    for (const id of callIds) {
      this.#set(`t\u0000${org}\u0000${policy}\u0000${id}`, model, TOOL_PIN_MS);
    }
  }

  endUser(org: string, policy: string, user: string): string | undefined {
    return this.#get(`u\u0000${org}\u0000${policy}\u0000${user}`);
  }

  pinEndUser(org: string, policy: string, user: string, model: string, seconds: number): void {
    this.#set(`u\u0000${org}\u0000${policy}\u0000${user}`, model, seconds * 1000);
  }
}
