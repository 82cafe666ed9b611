/**
 * Revocations told to every instance at once: revoking a key sends a notice on
 * `sovra_key_revoked` with its id (`pg_api_keys.ts`), and each gateway LISTENs on one dedicated
 * connection and forgets the key from its key cache. A hint only: correctness never depends on
 * it. A notice sent while the connection is down is missed (the connection is re-established
 * with backoff, 0.5 s doubling to 30 s), and the key cache's expiry (≤ 30 s) still bounds
 * revocation; a database without LISTEN/NOTIFY leaves just that bound.
 */
import postgres, { type Sql } from "postgres";
import { errorMessage, type Logger } from "../../log.ts";

export const REVOCATION_CHANNEL = "sovra_key_revoked";

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

export class RevocationListener {
  #listeners: Array<(keyId: string) => void> = [];
  #sql: Sql | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #backoffMs = FIRST_BACKOFF_MS;
  #down = false;
  #closed = false;
  #listening: Promise<void> | undefined;

  constructor(private readonly url: string, private readonly log: Logger) {}

  /**
   * Calls `listener` with the id of every key revoked from now on, by any instance. The
   * returned promise resolves once the first LISTEN was tried (tests wait for it).
   */
  add(listener: (keyId: string) => void): Promise<void> {
    this.#listeners.push(listener);
    if (this.#sql === undefined && !this.#closed) {
      const onnotify = (channel: string, payload: string) => {
        if (channel !== REVOCATION_CHANNEL) return;
        for (const l of this.#listeners) l(payload);
      };
      const options = {
        // postgres.js's `onnotify` option (its own `listen` is built on it; missing from its
        // typings). `sql.listen` is not used: after a failed reconnection it never listens again.
        onnotify,
        max: 1,
        idle_timeout: 0,
        max_lifetime: 0,
        connect_timeout: 5,
        fetch_types: false,
        onnotice: () => {},
        // The connection went (database restart, network): LISTEN again on a new one.
        onclose: () => this.#schedule(),
      };
      this.#sql = postgres(this.url, options);
      this.#listening = this.#listen();
    }
    return this.#listening ?? Promise.resolve();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#sql?.end({ timeout: 1 });
  }

  async #listen(): Promise<void> {
    if (this.#closed || this.#sql === undefined) return;
    try {
      await this.#sql.unsafe(`listen ${REVOCATION_CHANNEL}`);
      this.#backoffMs = FIRST_BACKOFF_MS;
      if (this.#down) this.log.info("revocation notices: listening again");
      this.#down = false;
    } catch (error) {
      if (this.#closed) return;
      if (!this.#down) {
        this.log.warn("revocation notices: cannot listen; the key cache's expiry still applies", {
          error: errorMessage(error),
        });
      }
      this.#down = true;
      this.#schedule();
    }
  }

  #schedule(): void {
    if (this.#closed || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#listen();
    }, this.#backoffMs);
    this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
  }
}
