/**
 * Group commit on PostgreSQL (`batch_committer.ts` queues and paces): settles and rate increments queued during one interval go out as
 * one statement (`writeBatch`), sums merged per org, day and key. A caller's promise resolves
 * once its write is committed, or — for a settle the database cannot take now — once it is
 * fsynced to the spill file (replayed later, billed once). A rate increment the database cannot
 * take is dropped (the limiter fails open; the outage is logged once and shown by /healthz). `onSent` runs when the commit has
 * landed, so a gate read issued afterwards contains the write (until then the gate counts it
 * from memory; a read racing the commit may count it twice for one refresh period: stricter,
 * never looser).
 */
import type { Db } from "./connect.ts";
import type { AdmissionRecord, RequestRecord } from "../records.ts";
import {
  DEAD_CONNECTION_RETRIES,
  isDeadConnection,
  isTransient,
  type RateIncrement,
  writeBatch,
} from "./settle_sql.ts";
import type { SettleSpill } from "./settle_spill.ts";
import type { CommitObserver } from "../store.ts";
import { delay } from "../lock_retry.ts";
import { BatchCommitter, type QueuedWrite, UNSET } from "../batch_committer.ts";
import { errorMessage, type Logger } from "../../log.ts";

type Item =
  | {
    kind: "settle";
    record: RequestRecord;
    /**
     * The rate increment of the request's admission write this settle took the place of
     * (`settleAdmitted`), with that write's `onSent` and the settle's own: the increment is
     * dropped, as any, when the database cannot take it; the settle is spilled.
     */
    rate?: {
      increment: RateIncrement;
      rateSent: (() => void) | undefined;
      settleSent: () => void;
    };
  }
  /** A later estimate of an open admission (a long stream's checkpoint). */
  | { kind: "progress"; admission: AdmissionRecord }
  /** A rate increment, with the request's admission record when it is about to call out. */
  | {
    kind: "rate";
    rate: RateIncrement;
    admission?: AdmissionRecord;
    /** The admission may wait for the commit interval (`MeteringStore.countRequest`). */
    deferrable?: boolean;
  };

interface Pending extends QueuedWrite {
  item: Item;
  onSent: (() => void) | undefined;
}

const MAX_BATCH = 2_000;

export interface CommitHealth {
  /** Whether the last write reached the database. */
  reachable: boolean;
  lastError: string | undefined;
}

export class PgCommitter extends BatchCommitter<Pending> {
  readonly health: CommitHealth = { reachable: true, lastError: undefined };

  constructor(
    private readonly sql: Db,
    private readonly spill: SettleSpill,
    private readonly log: Logger,
    minIntervalMs = 0,
    onCommit?: CommitObserver,
  ) {
    super(minIntervalMs, onCommit);
  }

  write(item: Item, onSent?: () => void): Promise<void> {
    // An answer waits for an admission record: it does not wait for the commit interval,
    // unless its route answers later than that anyway (`hurry` when it does not).
    const urgent = item.kind === "rate" && item.admission !== undefined && !item.deferrable;
    const { resolve, reject } = UNSET;
    const admits = item.kind === "rate" ? item.admission?.record.id : undefined;
    return this.enqueue({ item, onSent, resolve, reject, admits }, urgent);
  }

  /**
   * The request's admission write, while still queued, becomes its settle carrying the rate
   * increment (one statement; the admission record is never written). Undefined once a commit
   * has taken it.
   */
  settleAdmitted(record: RequestRecord, onSent: () => void): Promise<void> | undefined {
    return this.replaceAdmission(record.id, (queued) => {
      const rate = queued.item.kind === "rate"
        ? { increment: queued.item.rate, rateSent: queued.onSent, settleSent: onSent }
        : undefined;
      return {
        item: { kind: "settle", record, ...(rate ? { rate } : {}) },
        onSent: () => {
          rate?.rateSent?.();
          onSent();
        },
        resolve: queued.resolve,
        reject: queued.reject,
      };
    });
  }

  /** The database answered again (a probe): health says so before the next write does. */
  reachable(): void {
    if (!this.health.reachable) this.log.info("database reachable again; writes resumed");
    this.health.reachable = true;
    this.health.lastError = undefined;
  }

  /**
   * Up to MAX_BATCH; a batch cut by it is followed at once, as on KV: the rest may hold an
   * admission (an answer waits for it) whose urgency the first batch's wait used up.
   */
  protected take(): Pending[] {
    return this.queue.splice(0, MAX_BATCH);
  }

  protected async commitBatch(batch: Pending[], started: number): Promise<void> {
    await this.#commit(batch);
    this.onCommit?.(batch.length, performance.now() - started);
  }

  async #commit(batch: Pending[]): Promise<void> {
    try {
      await this.#attempt(batch);
      this.reachable();
      for (const listener of this.successes) listener();
      for (const p of batch) p.onSent?.();
      for (const p of batch) p.resolve();
      return;
    } catch (error) {
      if (!isTransient(error)) {
        // One bad record must not sink the others: alone, each commits or fails on its own.
        if (batch.length > 1) {
          for (const p of batch) await this.#commit([p]);
        } else {
          batch[0]!.onSent?.();
          batch[0]!.reject(error);
        }
        return;
      }
      if (this.health.reachable) {
        this.log.error(
          "database unreachable: settles go to the spill file, the limiter fails open",
          {
            reason: errorMessage(error),
          },
        );
      }
      this.health.reachable = false;
      this.health.lastError = errorMessage(error);
      for (const listener of this.failures) listener(error);
      await this.#keep(batch);
    }
  }

  /** Deadlocks and serialization failures are retried at once; other errors go up. */
  async #attempt(batch: Pending[]): Promise<void> {
    const settles: RequestRecord[] = [];
    const rates: RateIncrement[] = [];
    const admissions: AdmissionRecord[] = [];
    const progress = new Map<string, AdmissionRecord>();
    for (const p of batch) {
      if (p.item.kind === "settle") {
        settles.push(p.item.record);
        if (p.item.rate) rates.push(p.item.rate.increment);
      } else if (p.item.kind === "progress") {
        progress.set(p.item.admission.record.id, p.item.admission);
      } else {
        rates.push(p.item.rate);
        if (p.item.admission) admissions.push(p.item.admission);
      }
    }
    // An admission settled in this same batch is never written (it would outlive its settle),
    // nor a checkpoint of it; one admitted in this batch is written with its checkpoint.
    const settled = new Set(settles.map((r) => r.id));
    const open = admissions.filter((a) => !settled.has(a.record.id)).map((a) => {
      const later = progress.get(a.record.id);
      progress.delete(a.record.id);
      return later ?? a;
    });
    const checkpoints = [...progress.values()].filter((a) => !settled.has(a.record.id));
    for (let attempt = 0;; attempt++) {
      try {
        await writeBatch(this.sql, settles, rates, open, checkpoints);
        return;
      } catch (error) {
        const code = (error as { code?: string })?.code;
        if (attempt < 5 && (code === "40P01" || code === "40001")) {
          await delay(5 * 2 ** attempt * Math.random());
          continue;
        }
        // A pooled connection the server closed: the next attempt runs on another one.
        if (attempt < DEAD_CONNECTION_RETRIES && isDeadConnection(error)) continue;
        throw error;
      }
    }
  }

  /**
   * Settles go to the spill file; rate increments are dropped (the limiter fails open), and
   * their admission records with them (the settle, spilled, still bills the request).
   */
  async #keep(batch: Pending[]): Promise<void> {
    const settles = batch.filter((p) => p.item.kind === "settle");
    // Dropped on purpose (the limiter fails open; a checkpoint leaves the earlier estimate); the
    // outage is logged once, not per request.
    for (const p of batch) {
      if (p.item.kind !== "settle") {
        p.onSent?.();
        p.resolve();
      }
    }
    if (settles.length === 0) return;
    // A settle's own debit is replayed from the spill; the rate increment it carries is dropped.
    const spilled = settles.map((p) => {
      const item = p.item as Extract<Item, { kind: "settle" }>;
      if (!item.rate) return { record: item.record, onSent: p.onSent };
      item.rate.rateSent?.();
      return { record: item.record, onSent: item.rate.settleSent };
    });
    try {
      // A spilled debit stays "unsent" for the gate until the replay writes it.
      await this.spill.add(spilled.map((s) => s.record), spilled.map((s) => s.onSent));
      for (const p of settles) p.resolve();
    } catch (spillError) {
      for (const p of settles) {
        p.onSent?.();
        p.reject(spillError);
      }
    }
  }
}
