/** The Deno KV implementation of `ControlStore`, on the gateway's KV handle. */
import { kvKeys, type UsageField } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import type { ControlStore } from "../control_store.ts";
import {
  type AuditEntry,
  DEFAULT_ORG_SETTINGS,
  type LedgerEntry,
  type OrgSettings,
  type UsageDay,
  zeroUsage,
} from "../account_records.ts";
import type { RequestRecord } from "../records.ts";
import { timeOrderedIdFloor } from "../../util/ids.ts";

function u64(value: unknown): bigint {
  return value instanceof Deno.KvU64 ? value.value : 0n;
}

export class KvControlStore implements ControlStore {
  constructor(private readonly kv: Deno.Kv) {}

  async grantCredits(entry: LedgerEntry): Promise<bigint> {
    await withLockRetry(() =>
      this.kv.atomic()
        .sum(kvKeys.credit(entry.org, "granted"), BigInt(entry.amount_micro_eur))
        .set(kvKeys.ledger(entry.org, entry.id), entry)
        .commit()
    );
    const [granted, spent] = await this.kv.getMany([
      kvKeys.credit(entry.org, "granted"),
      kvKeys.credit(entry.org, "spent"),
    ]);
    return u64(granted?.value) - u64(spent?.value);
  }

  correctCredits(entry: LedgerEntry): Promise<bigint | undefined> {
    const grantedKey = kvKeys.credit(entry.org, "granted");
    return withLockRetry(async () => {
      for (;;) {
        // A grant sums into "granted" without a check; its commit changes the versionstamp
        // this one checks, so the two never interleave (this one reads again).
        const [granted, spent] = await this.kv.getMany([
          grantedKey,
          kvKeys.credit(entry.org, "spent"),
        ]);
        const next = u64(granted?.value) + BigInt(entry.amount_micro_eur);
        if (next < 0n) return undefined;
        // Every correction writes "granted", so the check below also orders corrections of
        // the same grant: one that lost the race reads the other's entry when it retries.
        if (entry.corrects && !await this.#withinGrant(entry.org, entry.corrects, entry)) {
          return undefined;
        }
        const result = await this.kv.atomic()
          .check(granted)
          .set(grantedKey, new Deno.KvU64(next))
          .set(kvKeys.ledger(entry.org, entry.id), {
            ...entry,
            kind: "correction",
            corrects: entry.corrects ?? null,
          })
          .commit();
        if (result.ok) return next - u64(spent?.value);
      }
    });
  }

  async #withinGrant(orgId: string, grantId: string, entry: LedgerEntry): Promise<boolean> {
    const grant = (await this.kv.get<LedgerEntry>(kvKeys.ledger(orgId, grantId))).value;
    if (!grant || grant.kind === "correction") return false;
    let net = grant.amount_micro_eur + entry.amount_micro_eur;
    for await (const e of this.kv.list<LedgerEntry>({ prefix: kvKeys.ledgerPrefix(orgId) })) {
      if (e.value.kind === "correction" && e.value.corrects === grantId) {
        net += e.value.amount_micro_eur;
      }
    }
    return net >= 0 && net <= grant.amount_micro_eur;
  }

  async listLedger(orgId: string, limit: number): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    const iter = this.kv.list<LedgerEntry>({ prefix: kvKeys.ledgerPrefix(orgId) }, {
      reverse: true,
      limit,
    });
    for await (const e of iter) out.push(e.value);
    return out;
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await withLockRetry(() => this.kv.set(kvKeys.audit(entry.org, entry.id), entry));
  }

  async listAudit(orgId: string | null, limit: number): Promise<AuditEntry[]> {
    const out: AuditEntry[] = [];
    const iter = this.kv.list<AuditEntry>({ prefix: kvKeys.auditPrefix(orgId) }, {
      reverse: true,
      limit,
    });
    for await (const e of iter) out.push(e.value);
    return out;
  }

  async getOrgSettings(orgId: string): Promise<OrgSettings> {
    const [entry, suspended] = await this.kv.getMany<[OrgSettings, string]>([
      kvKeys.orgSettings(orgId),
      kvKeys.orgSuspended(orgId),
    ]);
    return { ...DEFAULT_ORG_SETTINGS, ...entry.value, suspended_at: suspended.value ?? null };
  }

  async setOrgSettings(orgId: string, settings: OrgSettings): Promise<void> {
    // The suspension has a key of its own: a settings change never undoes an operator's.
    const { suspended_at: _kept, ...rest } = settings;
    await withLockRetry(() => this.kv.set(kvKeys.orgSettings(orgId), rest));
  }

  async setOrgSuspension(orgId: string, suspendedAt: string | null): Promise<void> {
    const key = kvKeys.orgSuspended(orgId);
    await withLockRetry(async () => {
      if (suspendedAt === null) await this.kv.delete(key);
      else await this.kv.set(key, suspendedAt);
    });
  }

  async requestsBetween(
    orgId: string,
    from: Date,
    to: Date,
    limit: number,
  ): Promise<RequestRecord[]> {
    const out: RequestRecord[] = [];
    const iter = this.kv.list<RequestRecord>({
      start: kvKeys.request(orgId, timeOrderedIdFloor("req_", from.getTime())),
      end: kvKeys.request(orgId, timeOrderedIdFloor("req_", to.getTime())),
    }, { reverse: true, limit });
    for await (const e of iter) out.push(e.value);
    return out;
  }

  async usageDays(orgId: string, fromDay: string, toDay: string): Promise<UsageDay[]> {
    const days = new Map<string, UsageDay>();
    const iter = this.kv.list<Deno.KvU64>({
      start: kvKeys.usageDayPrefix(orgId, fromDay),
      // The day after `toDay` as a key bound: every field key of toDay sorts before it.
      end: [...kvKeys.usageDayPrefix(orgId, toDay), "\uffff"],
    });
    for await (const e of iter) {
      const day = e.key[2] as string;
      const field = e.key[3] as UsageField;
      let row = days.get(day);
      if (!row) {
        row = { day, ...zeroUsage() };
        days.set(day, row);
      }
      row[field] = Number(u64(e.value));
    }
    return [...days.values()];
  }
}
