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
 *
 * Shared by the fleet when the store has a router-pin area (`state/router_pin_store.ts`): a
 * pin is kept here and written through to the store, and before a router request is planned
 * `prefetch` reads the pins it could use that this instance does not hold (the plan itself
 * is synchronous). A continuation that reaches another instance before the first one's write
 * committed (milliseconds) is routed afresh; a store error only logs (the pin stays local).
 * Without the area, pins are per instance.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { RouterPinStore } from "../state/router_pin_store.ts";

export const TOOL_PIN_MS = 3_600_000;
const MAX_PINS = 50_000;
/**
 * The continued tool-call ids the prefetch reads from the shared store, first ones first. The
 * ids come from the client (a 2 MiB body holds thousands); the model's own calls come first in
 * the assistant turn it sends back, and any one of them finds the pin.
 */
export const MAX_PREFETCHED_CALLS = 32;

interface Pin {
  model: string;
  expires: number;
}

export interface RouterPinsOptions {
  now?: () => number;
  /** The store's router-pin area; absent: pins stay in this instance. */
  shared?: RouterPinStore;
  /** Told when the shared store fails (the request is not). */
  onError?: (error: unknown) => void;
}

/** Keys: kind, organization, policy, id, joined by U+001F (slugs never hold it; PostgreSQL
 * text cannot hold U+0000). */
const toolKey = (org: string, policy: string, id: string) =>
  `t\u001f${org}\u001f${policy}\u001f${id}`;
const userKey = (org: string, policy: string, user: string) =>
  `u\u001f${org}\u001f${policy}\u001f${user}`;

/** Tool-call ids of the conversation's last assistant turn that made calls (a continuation). */
export function continuedCalls(request: Pick<ChatRequest, "messages">): string[] {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i]!;
    if (m.role === "user") return [];
    if (m.role === "assistant" && m.toolCalls?.length) return m.toolCalls.map((c) => c.id);
  }
  return [];
}

export class RouterPins {
  readonly #pins = new Map<string, Pin>();
  readonly #pending = new Set<Promise<void>>();
  readonly now: () => number;
  readonly #shared: RouterPinStore | undefined;
  readonly #onError: (error: unknown) => void;

  constructor(options: RouterPinsOptions | (() => number) = {}) {
    const o = typeof options === "function" ? { now: options } : options;
    this.now = o.now ?? Date.now;
    this.#shared = o.shared;
    this.#onError = o.onError ?? (() => {});
  }

  /**
   * Reads from the shared store the pins this request could use that this instance does not
   * hold: its continued tool calls, and its end-user when the policy is sticky. Undefined
   * (decided synchronously, no store read) when there is none to read.
   */
  prefetch(
    org: string,
    policy: { id: string; sticky_seconds?: number | undefined },
    request: Pick<ChatRequest, "messages" | "user">,
  ): Promise<void> | undefined {
    if (!this.#shared) return undefined;
    const keys = continuedCalls(request).slice(0, MAX_PREFETCHED_CALLS)
      .map((id) => toolKey(org, policy.id, id));
    if (policy.sticky_seconds && request.user) keys.push(userKey(org, policy.id, request.user));
    const missing = keys.filter((k) => this.#get(k) === undefined);
    if (missing.length === 0) return undefined;
    return this.#read(this.#shared, missing);
  }

  async #read(shared: RouterPinStore, keys: string[]): Promise<void> {
    try {
      for (const pin of await shared.getRouterPins(keys, this.now())) {
        this.#remember(pin.key, pin.model, pin.expires);
      }
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Resolves once every write-through started so far has ended. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  #get(key: string): string | undefined {
    const pin = this.#pins.get(key);
    if (!pin) return undefined;
    if (pin.expires <= this.now()) {
      this.#pins.delete(key);
      return undefined;
    }
    return pin.model;
  }

  #set(keys: readonly string[], model: string, ms: number): void {
    const expires = this.now() + ms;
    for (const key of keys) this.#remember(key, model, expires);
    if (!this.#shared || keys.length === 0) return;
    const write = this.#shared.putRouterPins(keys.map((key) => ({ key, model, expires })))
      .catch(this.#onError)
      .finally(() => this.#pending.delete(write));
    this.#pending.add(write);
  }

  #remember(key: string, model: string, expires: number): void {
    if (this.#pins.size >= MAX_PINS) {
      // Drop the oldest tenth (Map keeps insertion order).
      let drop = Math.ceil(MAX_PINS / 10);
      for (const k of this.#pins.keys()) {
        this.#pins.delete(k);
        if (--drop === 0) break;
      }
    }
    this.#pins.delete(key);
    this.#pins.set(key, { model, expires });
  }

  toolLoop(org: string, policy: string, callIds: readonly string[]): string | undefined {
    for (const id of callIds) {
      const model = this.#get(toolKey(org, policy, id));
      if (model) return model;
    }
    return undefined;
  }

  pinToolCalls(org: string, policy: string, callIds: readonly string[], model: string): void {
    this.#set(callIds.map((id) => toolKey(org, policy, id)), model, TOOL_PIN_MS);
  }

  endUser(org: string, policy: string, user: string): string | undefined {
    return this.#get(userKey(org, policy, user));
  }

  pinEndUser(org: string, policy: string, user: string, model: string, seconds: number): void {
    this.#set([userKey(org, policy, user)], model, seconds * 1000);
  }
}
