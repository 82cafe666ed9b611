/**
 * Settles the database could not take, kept on local disk until it can: an append-only JSON
 * lines file (fsynced before a settle counts as written), replayed with backoff while the
 * process runs and at the next start. Replays go through the same idempotent batch write
 * (request id already present → skipped), so a settle is billed once however often it is
 * replayed. Each instance needs its own file (`SOVRA_SPILL_PATH`).
 */
import type { RequestRecord } from "../records.ts";
import { errorMessage, type Logger } from "../../log.ts";
import { delay } from "../lock_retry.ts";

const encoder = new TextEncoder();
const MAX_BACKOFF_MS = 30_000;

export class SettleSpill {
  #pending = new Map<string, RequestRecord>();
  /** This process's gate marks for spilled debits: run once the debit reaches the database. */
  #onWritten = new Map<string, () => void>();
  /** File operations run one after another. */
  #chain: Promise<unknown> = Promise.resolve();
  #replaying: Promise<void> | undefined;
  #stopped = false;
  #wake: (() => void) | undefined;
  #backoff: number;

  constructor(
    private readonly path: string,
    private readonly write: (records: RequestRecord[]) => Promise<unknown>,
    private readonly log: Logger,
    private readonly firstBackoffMs = 500,
  ) {
    this.#backoff = firstBackoffMs;
  }

  /** Settles waiting for the database. */
  get size(): number {
    return this.#pending.size;
  }

  /** Loads what an earlier run left (a torn last line is skipped) and starts replaying it. */
  async load(): Promise<number> {
    let text = "";
    try {
      text = await Deno.readTextFile(this.path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const record = JSON.parse(line) as RequestRecord;
        this.#pending.set(record.id, record);
      } catch {
        this.log.warn("spill file: skipped a torn line", { path: this.path });
      }
    }
    if (this.#pending.size > 0) {
      this.log.warn("replaying settles spilled by an earlier run", {
        path: this.path,
        settles: this.#pending.size,
      });
      this.#startReplay();
    }
    return this.#pending.size;
  }

  /**
   * Appends and fsyncs; resolves once the records survive a crash. `onWritten` runs when the
   * record reaches the database.
   */
  add(records: RequestRecord[], onWritten: Array<(() => void) | undefined> = []): Promise<void> {
    if (this.path === "") return Promise.reject(new Error("No spill file (SOVRA_SPILL_PATH)."));
    const lines = records.map((r) => JSON.stringify(r) + "\n").join("");
    const done = this.#serial(async () => {
      const dir = this.path.replace(/[^/]*$/, "");
      if (dir) await Deno.mkdir(dir, { recursive: true });
      const file = await Deno.open(this.path, { append: true, create: true });
      try {
        await writeAll(file, encoder.encode(lines));
        await file.sync();
      } finally {
        file.close();
      }
      records.forEach((r, i) => {
        this.#pending.set(r.id, r);
        const written = onWritten[i];
        if (written) this.#onWritten.set(r.id, written);
      });
    });
    return done.then(() => this.#startReplay());
  }

  /** The database is back: replay now, and from the first backoff again. */
  wake(): void {
    this.#backoff = this.firstBackoffMs;
    this.#wake?.();
  }

  /** Resolves once nothing is spilled (tests), or rejects after `timeoutMs`. */
  async drained(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#pending.size > 0) {
      if (Date.now() > deadline) throw new Error(`${this.#pending.size} settles still spilled`);
      this.#wake?.();
      await delay(50);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#replaying;
    await this.#chain;
  }

  #serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(op, op);
    this.#chain = next.catch(() => {});
    return next;
  }

  #startReplay(): void {
    if (this.#replaying || this.#stopped) return;
    this.#replaying = this.#replay().finally(() => {
      this.#replaying = undefined;
      if (this.#pending.size > 0 && !this.#stopped) this.#startReplay();
    });
  }

  async #replay(): Promise<void> {
    while (this.#pending.size > 0 && !this.#stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#backoff);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
      if (this.#stopped) return;
      const batch = [...this.#pending.values()].slice(0, 500);
      try {
        await this.write(batch);
      } catch (error) {
        this.#backoff = Math.min(MAX_BACKOFF_MS, this.#backoff * 2);
        this.log.warn("spilled settles not written yet; retrying", {
          settles: this.#pending.size,
          retry_in_ms: this.#backoff,
          reason: errorMessage(error),
        });
        continue;
      }
      this.#backoff = this.firstBackoffMs;
      await this.#serial(async () => {
        for (const r of batch) {
          this.#pending.delete(r.id);
          this.#onWritten.get(r.id)?.();
          this.#onWritten.delete(r.id);
        }
        await this.#rewrite();
      });
      this.log.info("spilled settles written", {
        settles: batch.length,
        left: this.#pending.size,
      });
    }
  }

  /** Replaces the file by what is still pending (temp file + rename: never half-written). */
  async #rewrite(): Promise<void> {
    if (this.#pending.size === 0) {
      await Deno.remove(this.path).catch(() => {});
      return;
    }
    const tmp = `${this.path}.tmp`;
    const lines = [...this.#pending.values()].map((r) => JSON.stringify(r) + "\n").join("");
    const file = await Deno.open(tmp, { write: true, create: true, truncate: true });
    try {
      await writeAll(file, encoder.encode(lines));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(tmp, this.path);
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await file.write(bytes.subarray(offset));
}
