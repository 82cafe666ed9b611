/**
 * The router-pin area of the state: short-lived pins that keep a request on the model an
 * earlier one used, shared by every gateway instance on the same state (`src/smart_router/pins.ts`
 * keeps a copy in memory and writes through). A backend keeps these semantics (Deno KV:
 * `kv/router_pins.ts`; PostgreSQL: `postgres/pg_router_pins.ts`):
 *
 * - A pin is a key (organization, policy, and a tool-call id or an end-user id), the model id
 *   it keeps, and an expiry (epoch milliseconds). `putRouterPins` writes pins, each replacing
 *   the pin of the same key.
 * - `getRouterPins` returns the pins of the keys asked for that expire after `now`; a missing
 *   or expired pin is absent. An expired pin may linger in storage until the backend drops it,
 *   but is never returned.
 * - Pins hold ids only, never content. They are ephemeral (at most an hour, or a policy's
 *   `sticky_seconds`): `admin export` leaves them out.
 */
export interface RouterPin {
  key: string;
  model: string;
  /** Epoch milliseconds. */
  expires: number;
}

export interface RouterPinStore {
  getRouterPins(keys: readonly string[], now: number): Promise<RouterPin[]>;
  putRouterPins(pins: readonly RouterPin[]): Promise<void>;
}
