/**
 * One admission row per group commit instead of one per request:
 * the admission records a commit carries are written as one row per instance
 * (`["admission", first request id]` → `{ instance, records }`), and the row is deleted in the
 * commit that carries the settle of its last open request. A row's `set` and its `delete` were
 * about a third of the store's cost per request under load; now a commit of nine admissions
 * writes one row. Crash safety is unchanged: each record is durable in the same
 * commit as before, and a settled request's record stays listed in its row only until the
 * row's last request settles; recovery bills only the listed requests that have no request
 * row, and retention keeps the request rows that open admission rows list (`request_log.ts`).
 */
import type { AdmissionRecord, AdmissionRow, RequestRecord } from "../records.ts";
import type { Mutation } from "./group_commit.ts";
import { kvKeys } from "./kv_keys.ts";

/** Records per row: recovery checks each in one atomic (KV allows 100 checks). */
export const ROW_RECORDS = 32;
/** A row's estimated serialised size stays under this (KV values are capped at 64 KiB). */
export const ROW_BYTES = 24 * 1024;

interface Row {
  key: Deno.KvKey;
  /** Listed requests not settled yet. */
  open: number;
}

/** What one commit adds: the rows of its admissions, the deletes of the rows it closes. */
export interface RowPlan {
  mutations: Mutation[];
  /** Call once the commit is durable: its rows are open, its settled requests closed. */
  apply(): void;
}

export class AdmissionRows {
  /** Request id → the open row that lists it. */
  #rowOf = new Map<string, Row>();

  /**
   * The rows for a commit carrying `admissions` and the settles of `settled` (request ids).
   * An admission settled in the same commit gets no row (its set and delete would cancel).
   * Nothing changes until `apply`: a commit that fails leaves no trace.
   */
  plan(admissions: readonly AdmissionRecord[], settled: readonly string[]): RowPlan {
    const settledHere = new Set(settled);
    const mutations: Mutation[] = [];
    const opened: Array<[Row, RequestRecord[]]> = [];
    const filling = new Map<string, { records: RequestRecord[]; bytes: number }>();
    const close = (instance: string) => {
      const row = filling.get(instance);
      if (!row) return;
      filling.delete(instance);
      const key = kvKeys.admission(row.records[0]!.id);
      const value: AdmissionRow = { instance, records: row.records };
      mutations.push({ type: "set", key, value });
      opened.push([{ key, open: row.records.length }, row.records]);
    };
    for (const { instance, record } of admissions) {
      if (settledHere.has(record.id)) continue;
      const bytes = estimatedBytes(record);
      const row = filling.get(instance);
      if (row && (row.records.length >= ROW_RECORDS || row.bytes + bytes > ROW_BYTES)) {
        close(instance);
      }
      const current = filling.get(instance);
      if (current) {
        current.records.push(record);
        current.bytes += bytes;
      } else filling.set(instance, { records: [record], bytes });
    }
    for (const instance of [...filling.keys()]) close(instance);

    const left = new Map<Row, number>();
    const closed: string[] = [];
    for (const id of settledHere) {
      const row = this.#rowOf.get(id);
      if (!row) continue;
      closed.push(id);
      const open = (left.get(row) ?? row.open) - 1;
      left.set(row, open);
      if (open === 0) mutations.push({ type: "delete", key: row.key });
    }
    return {
      mutations,
      apply: () => {
        for (const [row, records] of opened) {
          for (const record of records) this.#rowOf.set(record.id, row);
        }
        for (const id of closed) this.#rowOf.delete(id);
        for (const [row, open] of left) row.open = open;
      },
    };
  }

  /** Requests listed in open rows and not settled yet (tests). */
  get open(): number {
    return this.#rowOf.size;
  }
}

/**
 * A generous bound of a record's V8-serialised size: fixed fields plus two bytes a character
 * of the strings that vary (a two-byte string takes two).
 */
function estimatedBytes(record: RequestRecord): number {
  let chars = record.id.length + record.org.length + record.key_id.length +
    record.requested_model.length + (record.user?.length ?? 0) +
    (record.served_model?.length ?? 0) + (record.provider?.length ?? 0) +
    (record.routing_policy?.length ?? 0);
  if (record.guardrail) chars += JSON.stringify(record.guardrail).length;
  return 600 + 2 * chars;
}
