/** The Deno KV implementation of `Store`. One handle per process. */
import { kvKeys, type UsageField } from "./kv_keys.ts";
import { GroupCommitter, type Mutation } from "./group_commit.ts";
import { withLockRetry } from "./lock_retry.ts";
import type { NewApiKey, Store } from "./store.ts";
import type { ApiKeyRecord, GateSnapshot, OrgRecord, OrgView, RequestRecord } from "./records.ts";
import { timeOrderedIdFloor } from "../ids.ts";

const U64_MOD = 1n << 64n;

/** Opens the KV file (retrying a concurrent first-open race) and wraps it. */
export async function openKvStore(path: string, commitIntervalMs = 0): Promise<KvStore> {
  if (path !== ":memory:" && !path.includes("://")) {
    const dir = path.replace(/[^/]*$/, "");
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  const kv = await withLockRetry(() => Deno.openKv(path));
  return new KvStore(kv, commitIntervalMs);
}

function u64(entry: Deno.KvEntryMaybe<unknown> | undefined): bigint {
  const value = entry?.value;
  return value instanceof Deno.KvU64 ? value.value : 0n;
}

function day(iso: string): string {
  return iso.slice(0, 10);
}

export class KvStore implements Store {
  readonly #writer: GroupCommitter;

  constructor(readonly kv: Deno.Kv, commitIntervalMs = 0) {
    this.#writer = new GroupCommitter(kv, commitIntervalMs);
  }

  async createOrg(org: OrgRecord, creditsMicroEur: bigint): Promise<OrgView> {
    await withLockRetry(async () => {
      const op = this.kv.atomic()
        .check({ key: kvKeys.org(org.id), versionstamp: null })
        .set(kvKeys.org(org.id), org)
        .sum(kvKeys.credit(org.id, "granted"), creditsMicroEur)
        .sum(kvKeys.credit(org.id, "spent"), 0n);
      const result = await op.commit();
      if (!result.ok) throw new Error(`Organization '${org.id}' already exists.`);
    });
    return (await this.getOrg(org.id))!;
  }

  async getOrg(orgId: string): Promise<OrgView | undefined> {
    const [org, granted, spent] = await this.kv.getMany([
      kvKeys.org(orgId),
      kvKeys.credit(orgId, "granted"),
      kvKeys.credit(orgId, "spent"),
    ]);
    if (!org?.value) return undefined;
    return orgView(org.value as OrgRecord, u64(granted), u64(spent));
  }

  async listOrgs(): Promise<OrgView[]> {
    const out: OrgView[] = [];
    for await (const entry of this.kv.list<OrgRecord>({ prefix: kvKeys.orgPrefix() })) {
      const view = await this.getOrg(entry.value.id);
      if (view) out.push(view);
    }
    return out;
  }

  async topUp(orgId: string, microEur: bigint): Promise<bigint> {
    await withLockRetry(() =>
      this.kv.atomic().sum(kvKeys.credit(orgId, "granted"), microEur).commit()
    );
    const view = await this.getOrg(orgId);
    return BigInt(view?.balance_micro_eur ?? 0);
  }

  async createApiKey(key: NewApiKey): Promise<ApiKeyRecord> {
    const record: ApiKeyRecord = {
      ...key,
      created: new Date().toISOString(),
      revoked: false,
      revoked_at: null,
    };
    await withLockRetry(async () => {
      const result = await this.kv.atomic()
        .check({ key: kvKeys.apiKeyHash(key.hash), versionstamp: null })
        .check({ key: kvKeys.apiKey(key.id), versionstamp: null })
        .set(kvKeys.apiKey(key.id), record)
        .set(kvKeys.apiKeyHash(key.hash), key.id)
        .set(kvKeys.orgKey(key.org, key.id), true)
        .commit();
      if (!result.ok) throw new Error("The API key collides with an existing one.");
    });
    return record;
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = await this.kv.get<string>(kvKeys.apiKeyHash(hash));
    if (id.value === null) return undefined;
    const record = await this.kv.get<ApiKeyRecord>(kvKeys.apiKey(id.value));
    return record.value ?? undefined;
  }

  async listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
    const out: ApiKeyRecord[] = [];
    for await (const entry of this.kv.list({ prefix: kvKeys.orgKeyPrefix(orgId) })) {
      const keyId = entry.key[2] as string;
      const record = await this.kv.get<ApiKeyRecord>(kvKeys.apiKey(keyId));
      if (record.value) out.push(record.value);
    }
    return out;
  }

  revokeApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<ApiKeyRecord>(kvKeys.apiKey(keyId));
        if (!current.value) return undefined;
        if (current.value.revoked) return current.value;
        const revoked = { ...current.value, revoked: true, revoked_at: new Date().toISOString() };
        const result = await this.kv.atomic().check(current).set(kvKeys.apiKey(keyId), revoked)
          .commit();
        if (result.ok) return revoked;
      }
    });
  }

  async readGate(keyId: string, orgId: string, minute: number): Promise<GateSnapshot> {
    const [current, previous, granted, spent] = await this.kv.getMany([
      kvKeys.rate(minute, keyId),
      kvKeys.rate(minute - 1, keyId),
      kvKeys.credit(orgId, "granted"),
      kvKeys.credit(orgId, "spent"),
    ]);
    return {
      rateCurrent: Number(u64(current)),
      ratePrevious: Number(u64(previous)),
      balanceMicroEur: u64(granted) - u64(spent),
    };
  }

  countRequest(keyId: string, minute: number, onSent?: () => void): Promise<void> {
    return this.#writer.write(
      [{ type: "sum", key: kvKeys.rate(minute, keyId), value: 1n }],
      64,
      onSent,
    );
  }

  settle(record: RequestRecord, onSent?: () => void): Promise<void> {
    const d = day(record.created);
    const mutations: Mutation[] = [
      { type: "set", key: kvKeys.request(record.org, record.id), value: record },
      { type: "sum", key: kvKeys.usageDay(record.org, d, "requests"), value: 1n },
    ];
    if (record.cost_micro_eur > 0) {
      const cost = BigInt(record.cost_micro_eur);
      mutations.push(
        { type: "sum", key: kvKeys.credit(record.org, "spent"), value: cost % U64_MOD },
        { type: "sum", key: kvKeys.usageDay(record.org, d, "cost_micro_eur"), value: cost },
      );
    }
    const aggregates: Array<[UsageField, number | null]> = [
      ["prompt_tokens", record.prompt_tokens],
      ["completion_tokens", record.completion_tokens],
      ["audio_seconds", record.audio_seconds],
      ["characters", record.characters],
    ];
    for (const [field, value] of aggregates) {
      if (value) {
        mutations.push({
          type: "sum",
          key: kvKeys.usageDay(record.org, d, field),
          value: BigInt(value),
        });
      }
    }
    return this.#writer.write(mutations, 900, onSent);
  }

  async listRequests(orgId: string, limit: number): Promise<RequestRecord[]> {
    const out: RequestRecord[] = [];
    const iter = this.kv.list<RequestRecord>({ prefix: kvKeys.requestPrefix(orgId) }, {
      reverse: true,
      limit,
    });
    for await (const entry of iter) out.push(entry.value);
    return out;
  }

  async dailyUsage(orgId: string, dayString: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for await (const entry of this.kv.list({ prefix: kvKeys.usageDayPrefix(orgId, dayString) })) {
      out[entry.key[3] as string] = Number(u64(entry));
    }
    return out;
  }

  async cleanup(
    before: Date,
    beforeMinute: number,
  ): Promise<{ requests: number; rateBuckets: number }> {
    let requests = 0;
    for await (const org of this.kv.list<OrgRecord>({ prefix: kvKeys.orgPrefix() })) {
      requests += await this.#deleteRange({
        start: kvKeys.requestPrefix(org.value.id),
        end: kvKeys.request(org.value.id, timeOrderedIdFloor("req_", before.getTime())),
      });
    }
    const rateBuckets = await this.#deleteRange({
      start: kvKeys.ratePrefix(),
      end: kvKeys.rate(beforeMinute, ""),
    });
    return { requests, rateBuckets };
  }

  async #deleteRange(selector: { start: Deno.KvKey; end: Deno.KvKey }): Promise<number> {
    let deleted = 0;
    let batch: Deno.KvKey[] = [];
    const flush = async () => {
      const op = this.kv.atomic();
      for (const key of batch) op.delete(key);
      await withLockRetry(() => op.commit());
      deleted += batch.length;
      batch = [];
    };
    for await (const entry of this.kv.list(selector)) {
      batch.push(entry.key);
      if (batch.length === 500) await flush();
    }
    if (batch.length > 0) await flush();
    return deleted;
  }

  /** Resolves once every queued write is durable (tests, shutdown). */
  flushed(): Promise<void> {
    return this.#writer.flushed();
  }

  async close(): Promise<void> {
    await this.#writer.close();
    this.kv.close();
  }
}

function orgView(org: OrgRecord, granted: bigint, spent: bigint): OrgView {
  return {
    ...org,
    balance_micro_eur: Number(granted - spent),
    granted_micro_eur: Number(granted),
    spent_micro_eur: Number(spent),
  };
}
