/**
 * Metadata rows for requests refused after authentication (400, 402, 403, 404, 429 …) that no
 * other path settles: cost 0, no served model, no provider, no usage, the status and the error
 * object's `code` the client got — never the body. Each goes through the settler like a billed
 * request's row (one group-committed write, nothing more).
 *
 * Refusals the key's rate limit already counted (everything after the gate's rate check) get a
 * row each: there are at most the key's RPM of them a minute, as of billed requests. The gate's
 * own refusals (429 `rate_limit_exceeded`, 402 `insufficient_credits` before the rate count) are
 * not bounded so, and a flood of them must not become a flood of writes: per key, error code
 * and minute, the first gets its row at once and every later one is only counted, then written
 * as one row with `refused_count` when the minute is over (or at shutdown) — at most two rows
 * a key, code and minute per instance, whatever the flood.
 */
import type { RequestRecord } from "../state/records.ts";
import type { SettleInput, Settler } from "./settle.ts";
import { minuteOf } from "../state/minute.ts";

/** The request as far as it was read when it was refused (an unread body: model ""). */
export interface RefusedRequest {
  requestId: string;
  startedAt: number;
  endedAt: number;
  org: string;
  keyId: string;
  endpoint: RequestRecord["endpoint"];
  requestedModel: string;
  user: string | undefined;
  stream: boolean;
  status: number;
  errorCode: string;
}

interface Coalesced {
  minute: number;
  /** Refusals counted since the last row, and the first of them (the row's fields). */
  count: number;
  sample: RefusedRequest | undefined;
}

/** Beyond this many coalescing entries, they are written out early (memory stays bounded). */
const MAX_ENTRIES = 10_000;

export class RefusedRows {
  #coalescing = new Map<string, Coalesced>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly settler: Pick<Settler, "settle">,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A refusal the key's rate count already bounds: its own row, now. The request is counted in
   * the metrics where it was refused (endpoint and status class), not by its row.
   */
  record(refused: RefusedRequest): void {
    void this.settler.settle(settleInputOf(refused, undefined), undefined, { counted: true });
  }

  /** A gate refusal (429, 402): the first of its key, code and minute now, later ones merged. */
  recordCoalesced(refused: RefusedRequest): void {
    const id = `${refused.keyId}\u0000${refused.errorCode}`;
    const minute = minuteOf(refused.startedAt);
    const entry = this.#coalescing.get(id);
    if (entry?.minute === minute) {
      entry.count++;
      entry.sample ??= refused;
      this.#arm();
      return;
    }
    if (entry) this.#writeMerged(entry);
    if (this.#coalescing.size >= MAX_ENTRIES) this.flush(true);
    this.#coalescing.set(id, { minute, count: 0, sample: undefined });
    this.#arm();
    this.record(refused);
  }

  /**
   * Writes every merged row now (shutdown, before the settler's last writes; tests). Entries of
   * the current minute stay, so what follows in that minute keeps being merged; `all` drops them.
   */
  flush(all = false): void {
    const minute = minuteOf(this.now());
    for (const [id, entry] of this.#coalescing) {
      this.#writeMerged(entry);
      if (all || entry.minute < minute) this.#coalescing.delete(id);
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#coalescing.size > 0) this.#arm();
  }

  #writeMerged(entry: Coalesced): void {
    if (entry.sample && entry.count > 0) {
      void this.settler.settle(settleInputOf(entry.sample, entry.count), undefined, {
        counted: true,
      });
    }
    entry.count = 0;
    entry.sample = undefined;
  }

  /** One timer for every entry: just after the current minute ends, it writes and forgets. */
  #arm(): void {
    if (this.#timer !== undefined) return;
    const now = this.now();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, (minuteOf(now) + 1) * 60_000 - now + 50);
    Deno.unrefTimer(this.#timer);
  }
}

function settleInputOf(r: RefusedRequest, refusedCount: number | undefined): SettleInput {
  const input: SettleInput = {
    id: r.requestId,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    org: r.org,
    keyId: r.keyId,
    user: r.user,
    endpoint: r.endpoint,
    requestedModel: r.requestedModel,
    model: undefined,
    servedModel: undefined,
    provider: undefined,
    status: r.status,
    stream: r.stream,
    fallbacks: 0,
    estimated: false,
    errorCode: r.errorCode,
  };
  if (refusedCount !== undefined) input.refusedCount = refusedCount;
  return input;
}
