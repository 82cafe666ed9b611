/**
 * Group commit: many requests' mutations in one KV atomic. While one commit is in flight the
 * next ones queue; when it lands, everything queued goes out together (≤ the KV limits).
 * Every caller's promise resolves only once its own mutations are durable, so nothing is
 * acknowledged that could be lost; a local KV does ~4k commits/s, so this is what lets
 * settles keep up with the HTTP path.
 */
export type Mutation =
  | { type: "sum"; key: Deno.KvKey; value: bigint }
  | { type: "set"; key: Deno.KvKey; value: unknown };

interface Pending {
  mutations: Mutation[];
  bytes: number;
  onSent: (() => void) | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** KV allows 1000 mutations and 800 KiB per atomic; stay clear of both. */
const MAX_MUTATIONS = 900;
const MAX_BYTES = 600 * 1024;
const RETRIES = 8;

export class GroupCommitter {
  #queue: Pending[] = [];
  #running = false;
  #closed = false;
  #idle: Array<() => void> = [];

  constructor(private readonly kv: Deno.Kv) {}

  /**
   * Queues mutations that must commit together; resolves when they are durable. `onSent` runs
   * synchronously when the commit carrying them is handed to the KV handle: the handle is
   * serial, so every read issued after that moment sees them.
   */
  write(mutations: Mutation[], approxBytes: number, onSent?: () => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("The store is closed."));
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ mutations, bytes: approxBytes, onSent, resolve, reject });
      if (!this.#running) {
        this.#running = true;
        queueMicrotask(() => this.#drain());
      }
    });
  }

  /** Resolves when nothing is queued or in flight. */
  flushed(): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async close(): Promise<void> {
    await this.flushed();
    this.#closed = true;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#take();
      try {
        await this.#commit(batch);
        for (const p of batch) p.resolve();
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    this.#running = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  #take(): Pending[] {
    const batch: Pending[] = [];
    let mutations = 0;
    let bytes = 0;
    while (this.#queue.length > 0) {
      const next = this.#queue[0]!;
      const fits = mutations + next.mutations.length <= MAX_MUTATIONS &&
        bytes + next.bytes <= MAX_BYTES;
      if (!fits && batch.length > 0) break;
      batch.push(this.#queue.shift()!);
      mutations += next.mutations.length;
      bytes += next.bytes;
    }
    return batch;
  }

  async #commit(batch: Pending[]): Promise<void> {
    const { sums, sets } = mergeMutations(batch);
    for (let attempt = 0;; attempt++) {
      const op = this.kv.atomic();
      for (const [key, value] of sums.values()) op.sum(key, value);
      for (const m of sets) op.set(m.key, m.value);
      const committed = op.commit();
      if (attempt === 0) {
        for (const p of batch) p.onSent?.();
      }
      try {
        await committed;
        return;
      } catch (error) {
        // Another process (the admin CLI) may hold the SQLite lock for a moment.
        if (attempt >= RETRIES || !isLockError(error)) throw error;
        await delay(Math.min(500, 5 * 2 ** attempt) * (0.5 + Math.random()));
      }
    }
  }
}

/**
 * Sums to the same key within one batch become one sum (the org's spent counter, daily
 * aggregates and rate buckets are shared by many requests), so a batch writes far fewer rows.
 * KvU64 sums wrap modulo 2^64, so adding the operands first gives the same result.
 */
function mergeMutations(batch: Pending[]): {
  sums: Map<string, [Deno.KvKey, bigint]>;
  sets: Array<{ key: Deno.KvKey; value: unknown }>;
} {
  const sums = new Map<string, [Deno.KvKey, bigint]>();
  const sets: Array<{ key: Deno.KvKey; value: unknown }> = [];
  for (const p of batch) {
    for (const m of p.mutations) {
      if (m.type === "set") {
        sets.push(m);
        continue;
      }
      const id = m.key.map((part) => `${typeof part}:${String(part)}`).join("\u0000");
      const current = sums.get(id);
      if (current) current[1] = (current[1] + m.value) % U64;
      else sums.set(id, [m.key, m.value]);
    }
  }
  return { sums, sets };
}

const U64 = 1n << 64n;

export function isLockError(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
