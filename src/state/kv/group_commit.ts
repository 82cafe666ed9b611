/**
 * Group commit on Deno KV (`batch_committer.ts` queues and paces): many requests' mutations in
 * one KV atomic. While one commit is in flight the next ones queue; when it lands, everything
 * queued goes out together (≤ the KV limits).
 * Every caller's promise resolves only once its own mutations are durable, so nothing is
 * acknowledged that could be lost. Each commit costs ~45 µs of main-thread time and ~0.15 ms
 * of CPU on the KV thread whatever its size, so commits start at most every `minIntervalMs`
 * after the previous one's start, idle or not (`CommitPacer`): the writes of that interval
 * share one commit. Settles happen after the
 * answer; the one write an answer waits for is a request's rate increment with its admission
 * record, issued before the upstream call so the wait overlaps it. A commit lists
 * all the admission records it carries in one row (`admission_rows.ts`).
 */
import type { CommitObserver } from "../store.ts";
import type { AdmissionRecord } from "../records.ts";
import { withLockRetry } from "../lock_retry.ts";
import { BatchCommitter, type QueuedWrite, UNSET } from "../batch_committer.ts";
import { AdmissionRows } from "./admission_rows.ts";

export type Mutation =
  | { type: "sum"; key: Deno.KvKey; value: bigint }
  | { type: "set"; key: Deno.KvKey; value: unknown }
  /** `existing`: the key may be there from an earlier commit (never cancelled by a set). */
  | { type: "delete"; key: Deno.KvKey; existing?: true };

/** A write's part in the admission rows (`admission_rows.ts`). */
export interface AdmissionPart {
  /** An admission record to list in this commit's row. */
  admission?: AdmissionRecord;
  /** The request this write settles: its row closes when it is the last open one. */
  settles?: string;
}

/**
 * A write whose key must not exist yet (a request's record: a request is billed once). When it
 * does — a recovery billed the request's estimate meanwhile — `instead` says what to write in
 * its place, given the value there (a correction, or nothing), checked against that value.
 */
export interface UniqueWrite {
  key: Deno.KvKey;
  instead(existing: unknown): Mutation[];
}

interface Pending extends QueuedWrite {
  mutations: Mutation[];
  bytes: number;
  rows: AdmissionPart | undefined;
  unique: UniqueWrite | undefined;
  onSent: (() => void) | undefined;
}

/**
 * KV allows 1000 mutations and 800 KiB per atomic. The mutations are serialised on the main
 * thread when the commit is handed over (~2.6 µs a row), so one batch is also a main-thread
 * pause: 256 keeps it under ~1 ms. A batch cut by this cap is followed at once by
 * the next one, without the interval.
 */
const MAX_MUTATIONS = 256;
const MAX_BYTES = 600 * 1024;
/** KV allows 100 checks per atomic. */
const MAX_CHECKS = 90;
const RETRIES = 9;

export class GroupCommitter extends BatchCommitter<Pending> {
  readonly #rows = new AdmissionRows();

  constructor(
    private readonly kv: Deno.Kv,
    minIntervalMs = 0,
    /** Told of every commit: how many writes it carried and how long it took. */
    onCommit?: CommitObserver,
  ) {
    super(minIntervalMs, onCommit);
  }

  /**
   * Queues mutations that must commit together; resolves when they are durable. `onSent` runs
   * synchronously when the commit carrying them is handed to the KV handle: the handle is
   * serial, so every read issued after that moment sees them.
   */
  write(
    mutations: Mutation[],
    approxBytes: number,
    onSent?: () => void,
    /** An answer waits for this write: commit without waiting for the interval. */
    urgent = false,
    rows?: AdmissionPart,
    unique?: UniqueWrite,
  ): Promise<void> {
    const { resolve, reject } = UNSET;
    const admits = rows?.admission?.record.id;
    const write = { mutations, bytes: approxBytes, rows, unique, onSent, resolve, reject, admits };
    return this.enqueue(write, urgent);
  }

  /**
   * The request's admission write, while still queued, carries `mutations` (its settle) and
   * `unique` instead of the admission record: one commit, no admission row (the settle is what
   * a crash would otherwise have billed from it). Undefined once a commit has taken it.
   */
  settleAdmitted(
    requestId: string,
    mutations: Mutation[],
    approxBytes: number,
    onSent: () => void,
    unique: UniqueWrite,
  ): Promise<void> | undefined {
    return this.replaceAdmission(requestId, (queued) => ({
      mutations: [...queued.mutations, ...mutations],
      bytes: queued.bytes + approxBytes,
      rows: undefined,
      unique: {
        key: unique.key,
        // Over a record already there, the admission's own mutations (its rate increment) still.
        instead: (existing) => [...queued.mutations, ...unique.instead(existing)],
      },
      onSent: () => {
        queued.onSent?.();
        onSent();
      },
      resolve: queued.resolve,
      reject: queued.reject,
      admits: undefined,
    }));
  }

  protected async commitBatch(batch: Pending[], started: number): Promise<void> {
    let committed = false;
    try {
      committed = await this.#commit(batch);
    } catch (error) {
      for (const listener of this.failures) listener(error);
      if (batch.length === 1 && !batch[0]!.unique) {
        batch[0]!.reject(error);
        return;
      }
    }
    if (committed) {
      this.onCommit?.(batch.length, performance.now() - started);
      for (const listener of this.successes) listener();
      for (const p of batch) p.resolve();
      return;
    }
    // One bad write (e.g. over a KV limit), or a request's record already there, must not
    // take the others down: alone, each commits (or is corrected) or fails on its own.
    for (const p of batch) await this.#alone(p).then(p.resolve, p.reject);
  }

  protected take(): Pending[] {
    let count = 0;
    let mutations = 0;
    let bytes = 0;
    let checks = 0;
    for (const next of this.queue) {
      // An admission or a settle adds at most one row's set or delete.
      const size = next.mutations.length + (next.rows ? 1 : 0);
      const check = next.unique ? 1 : 0;
      const fits = mutations + size <= MAX_MUTATIONS && bytes + next.bytes <= MAX_BYTES &&
        checks + check <= MAX_CHECKS;
      if (!fits && count > 0) break;
      count++;
      mutations += size;
      bytes += next.bytes;
      checks += check;
    }
    return this.queue.splice(0, count);
  }

  /**
   * Commits the batch in one atomic; false when a unique key already exists (nothing applied).
   * `existing`: the value a correction was computed from, checked unchanged.
   */
  async #commit(batch: Pending[], existing?: Deno.KvEntryMaybe<unknown>): Promise<boolean> {
    const rows = this.#rowsOf(batch);
    const { sums, sets, deletes } = mergeMutations(batch, rows?.mutations);
    const ok = await withLockRetry(async (attempt) => {
      const op = this.kv.atomic();
      if (existing) op.check(existing);
      else {
        for (const p of batch) {
          if (p.unique) op.check({ key: p.unique.key, versionstamp: null });
        }
      }
      for (const [key, value] of sums) op.sum(key, value);
      for (const m of sets) op.set(m.key, m.value);
      for (const key of deletes) op.delete(key);
      const committed = op.commit();
      if (attempt === 0) {
        for (const p of batch) p.onSent?.();
      }
      return (await committed).ok;
    }, RETRIES);
    if (ok) rows?.apply();
    return ok;
  }

  /**
   * One write on its own. A unique key that exists is written as its `instead` says, checked
   * against the value read (a concurrent change makes it read again).
   */
  async #alone(p: Pending): Promise<void> {
    if (await this.#commit([p])) return;
    for (let attempt = 0; attempt < 8; attempt++) {
      const existing = await this.kv.get(p.unique!.key);
      if (existing.versionstamp === null) {
        if (await this.#commit([p])) return;
        continue;
      }
      const instead = { ...p, mutations: p.unique!.instead(existing.value), unique: undefined };
      if (await this.#commit([instead], existing)) return;
    }
    throw new Error("The request's record kept changing; not written.");
  }

  /** The admission rows this batch writes and closes, if it carries admissions or settles. */
  #rowsOf(batch: Pending[]) {
    const admissions: AdmissionRecord[] = [];
    const settled: string[] = [];
    for (const p of batch) {
      if (p.rows?.admission) admissions.push(p.rows.admission);
      if (p.rows?.settles !== undefined) settled.push(p.rows.settles);
    }
    return admissions.length + settled.length > 0
      ? this.#rows.plan(admissions, settled)
      : undefined;
  }
}

/**
 * Sums to the same key within one batch become one sum (the org's spent counter, daily
 * aggregates and rate buckets are shared by many requests), so a batch writes far fewer rows.
 * KvU64 sums wrap modulo 2^64, so adding the operands first gives the same result. A later set of
 * a key replaces an earlier one and drops its delete; a delete of a key set earlier in the same
 * batch cancels the set. `extra`: the batch's admission rows.
 *
 * Keys are found in a tree with one level a key part (maps compare strings and numbers by
 * value), not by a string built per mutation: ~3× cheaper per request.
 */
export function mergeMutations(
  batch: readonly { mutations: readonly Mutation[] }[],
  extra: readonly Mutation[] = [],
): {
  sums: Array<[Deno.KvKey, bigint]>;
  sets: Array<{ key: Deno.KvKey; value: unknown }>;
  deletes: Deno.KvKey[];
} {
  const merged: Merged = { root: keyNode(), sums: [], sets: [], deletes: [] };
  for (const p of batch) mergeInto(merged, p.mutations);
  mergeInto(merged, extra);
  return {
    sums: merged.sums,
    sets: merged.sets.filter((m) => m !== undefined),
    deletes: merged.deletes.filter((key) => key !== undefined),
  };
}

/** A key part's place in the tree, and what the batch does to the key ending there. */
interface KeyNode {
  children: Map<unknown, KeyNode> | undefined;
  sum: [Deno.KvKey, bigint] | undefined;
  /** Indexes in `Merged.sets` / `Merged.deletes`. */
  set: number | undefined;
  delete: number | undefined;
}

const keyNode = (): KeyNode => ({
  children: undefined,
  sum: undefined,
  set: undefined,
  delete: undefined,
});

interface Merged {
  root: KeyNode;
  sums: Array<[Deno.KvKey, bigint]>;
  /** `undefined`: cancelled by a later mutation of its key. */
  sets: Array<{ key: Deno.KvKey; value: unknown } | undefined>;
  deletes: Array<Deno.KvKey | undefined>;
}

function mergeInto(merged: Merged, mutations: readonly Mutation[]): void {
  for (const m of mutations) {
    let node = merged.root;
    for (const part of m.key) {
      // A byte array by its bytes; every other part as itself.
      const id = part instanceof Uint8Array ? `\u0000bytes${String(part)}` : part;
      let child = node.children?.get(id);
      if (!child) (node.children ??= new Map()).set(id, child = keyNode());
      node = child;
    }
    if (m.type === "sum") {
      if (node.sum) node.sum[1] = (node.sum[1] + m.value) % U64;
      else merged.sums.push(node.sum = [m.key, m.value]);
    } else if (m.type === "set") {
      if (node.set !== undefined) merged.sets[node.set] = m;
      else node.set = merged.sets.push(m) - 1;
      if (node.delete !== undefined) merged.deletes[node.delete] = undefined;
      node.delete = undefined;
    } else if (node.set !== undefined) {
      merged.sets[node.set] = undefined;
      node.set = undefined;
      // A key written by an earlier commit too: the set goes, the delete stays.
      if (m.existing) node.delete = merged.deletes.push(m.key) - 1;
    } else if (node.delete !== undefined) merged.deletes[node.delete] = m.key;
    else node.delete = merged.deletes.push(m.key) - 1;
  }
}

const U64 = 1n << 64n;
