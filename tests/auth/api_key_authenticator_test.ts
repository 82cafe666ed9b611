/**
 * A revocation notice (`forget`) that arrives while a lookup of the same key is in flight: the
 * lookup read the row before the revocation committed, so what it read must not be cached —
 * the key's next request reads again and is refused, not served for the cache's lifetime.
 */
import assert from "node:assert/strict";
import { ApiKeyAuthenticator } from "../../src/auth/api_key_authenticator.ts";
import { generateApiKey, hashApiKey } from "../../src/auth/api_key_format.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import type { ApiKeyRecord } from "../../src/state/records.ts";
import { closing } from "../helpers/dispose.ts";
import { kvControlPlane } from "../../src/state/kv/control_plane.ts";

Deno.test("key cache — a revocation told during an in-flight lookup is not undone by caching the stale read", async () => {
  await using store = closing(await openKvStore(":memory:"));
  const key = generateApiKey();
  await store.createOrg({ id: "org_a", name: "A", created: new Date().toISOString() }, 1_000n);
  await store.createApiKey({
    id: "key_a",
    org: "org_a",
    name: null,
    rpm: 60,
    hash: hashApiKey(key),
    prefix: key.slice(0, 10),
  });
  // The store's read returns, but its answer is held until the test lets it go.
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  let read!: () => void;
  const readDone = new Promise<void>((resolve) => read = resolve);
  let hold = true;
  const slowStore = {
    async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
      const record = await store.findApiKeyByHash(hash);
      if (hold) {
        hold = false;
        read();
        await held;
      }
      return record;
    },
  };
  const auth = new ApiKeyAuthenticator(slowStore, 30_000);
  const first = auth.authenticate(`Bearer ${key}`);
  await readDone; // the lookup read the active row
  await store.revokeApiKey("key_a");
  auth.forget("key_a"); // the notice
  release();
  assert.equal((await first)?.id, "key_a", "the request already in flight passes");
  assert.equal(await auth.authenticate(`Bearer ${key}`), undefined, "the next one is refused");
});

/** A store with one key that counts its lookups (the cache's hits make none). */
function countingStore(key: string, record: Partial<ApiKeyRecord> = {}) {
  const stored: ApiKeyRecord = {
    id: "key_a",
    org: "org_a",
    name: null,
    rpm: 60,
    hash: hashApiKey(key),
    prefix: key.slice(0, 10),
    created: "2026-01-01T00:00:00.000Z",
    revoked: false,
    ...record,
  } as ApiKeyRecord;
  const store = {
    lookups: 0,
    record: stored,
    findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
      store.lookups++;
      return Promise.resolve(hash === store.record.hash ? store.record : undefined);
    },
  };
  return store;
}

Deno.test("key cache — every spelling of the header gets the same answer, looked up or cached", async () => {
  const key = generateApiKey();
  const other = generateApiKey();
  // The scheme is case-insensitive and the key is trimmed; anything else is refused.
  const cases: Array<[string | undefined, boolean]> = [
    [`Bearer ${key}`, true],
    [`bearer ${key}`, true],
    [`BEARER ${key}`, true],
    [`Bearer  ${key} `, true],
    [`Bearer ${key}\t`, true],
    [`Basic ${key}`, false],
    [`Bearer${key}`, false],
    [`Bearer ${key.slice(0, 48)}`, false],
    [`Bearer ${key}x`, false],
    [`Bearer ${other}`, false],
    ["Bearer ", false],
    ["", false],
    [undefined, false],
  ];
  const store = countingStore(key);
  const auth = new ApiKeyAuthenticator(store, 30_000);
  for (const round of ["first", "second"]) {
    for (const [header, accepted] of cases) {
      const found = await auth.authenticate(header);
      assert.equal(
        found?.id,
        accepted ? "key_a" : undefined,
        `${round}: ${JSON.stringify(header)}`,
      );
    }
  }
  // Three `<scheme> <key>` spellings looked up once each (the two with more whitespace share
  // `Bearer <key>`'s entry); the unknown well-formed key each time.
  assert.equal(store.lookups, 3 + 2);
});

Deno.test("key cache — forget drops every spelling of the key; a cached revoked record answers no", async () => {
  let now = 1_000_000;
  const key = generateApiKey();
  const store = countingStore(key);
  const auth = new ApiKeyAuthenticator(store, 30_000, () => now);
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.id, "key_a");
  assert.equal((await auth.authenticate(`bearer ${key}`))?.id, "key_a");
  store.record = { ...store.record, revoked: true };
  auth.forget("key_a");
  assert.equal(await auth.authenticate(`Bearer ${key}`), undefined);
  assert.equal(await auth.authenticate(`bearer ${key}`), undefined);
  // A revoked record read into the cache keeps answering no until it expires.
  const lookups = store.lookups;
  assert.equal(await auth.authenticate(`Bearer ${key}`), undefined);
  assert.equal(store.lookups, lookups, "answered from the cache");
  store.record = { ...store.record, revoked: false };
  now += 30_001;
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.id, "key_a", "read again after 30 s");
});

Deno.test("key cache — a client cannot grow the cache with ever more spellings of its key's whitespace", async () => {
  // An HTTP header value may be ~100 KB: whitespace between the scheme and the key (which the
  // lookup trims) must not make one cache entry per length, each holding the whole header.
  const key = generateApiKey();
  const store = countingStore(key);
  const auth = new ApiKeyAuthenticator(store, 30_000);
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.id, "key_a");
  for (let spaces = 2; spaces < 2_000; spaces++) {
    const header = `Bearer${" ".repeat(spaces)}${key}${spaces % 2 ? "\t" : ""}`;
    assert.equal((await auth.authenticate(header))?.id, "key_a", `${spaces} spaces`);
  }
  assert.equal(auth.size, 1, "one entry for the key, whatever its whitespace");
  assert.equal(store.lookups, 1, "every spelling answered from that entry");
  // Revocation still reaches every spelling.
  store.record = { ...store.record, revoked: true };
  auth.forget("key_a");
  assert.equal(await auth.authenticate(`Bearer   ${key}`), undefined);
  assert.equal(await auth.authenticate(`Bearer ${key}`), undefined);
});

Deno.test("key cache — while the store is away, a key seen recently answers without a lookup; an unseen one is still looked up", async () => {
  let now = 1_000_000;
  const key = generateApiKey();
  const other = generateApiKey();
  const store = Object.assign(countingStore(key), { isAway: false, away: () => store.isAway });
  const auth = new ApiKeyAuthenticator(store, 30_000, () => now, 60_000);
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.id, "key_a");
  store.isAway = true;
  now += 30_001; // expired, within the stale bound
  const lookups = store.lookups;
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.id, "key_a");
  assert.equal(store.lookups, lookups, "served from the cache, no call to an absent store");
  assert.equal(await auth.authenticate(`Bearer ${other}`), undefined);
  assert.equal(store.lookups, lookups + 1, "nothing to serve: the store is tried");
  now += 60_000; // past the stale bound: tried again
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.id, "key_a");
  assert.equal(store.lookups, lookups + 2);
  store.isAway = false;
  now += 30_001;
  await auth.authenticate(`Bearer ${key}`);
  assert.equal(store.lookups, lookups + 3, "the store is back: an expired entry is read again");
});

Deno.test("key cache — the organization's RPM ceiling caps the key's rpm from its next lookup (within the cache time)", async () => {
  await using store = closing(await openKvStore(":memory:"));
  const { control } = kvControlPlane(store.kv);
  const key = generateApiKey();
  await store.createOrg({ id: "org_a", name: "A", created: new Date().toISOString() }, 1_000n);
  await store.createApiKey({
    id: "key_a",
    org: "org_a",
    name: null,
    rpm: 100,
    hash: hashApiKey(key),
    prefix: key.slice(0, 10),
  });
  let now = 1_000_000;
  const auth = new ApiKeyAuthenticator(
    store,
    30_000,
    () => now,
    0,
    async (org) => {
      reads++;
      const settings = await control.getOrgSettings(org);
      return { rpmCeiling: settings.rpm_ceiling, suspended: settings.suspended_at !== null };
    },
  );
  let reads = 0;
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.rpm, 100, "no ceiling");
  const settings = { low_balance_micro_eur: null, require_2fa: false, suspended_at: null };
  await control.setOrgSettings("org_a", { ...settings, rpm_ceiling: 5 });
  now += 29_000;
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.rpm, 100, "cached until its time");
  now += 1_001;
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.rpm, 5, "then capped");
  assert.equal((await store.findApiKeyByHash(hashApiKey(key)))?.rpm, 100, "the key keeps its own");
  await control.setOrgSettings("org_a", { ...settings, rpm_ceiling: 500 });
  now += 30_001;
  assert.equal(
    (await auth.authenticate(`Bearer ${key}`))?.rpm,
    100,
    "a higher ceiling raises nothing",
  );
  // A suspension rides the same lookup: flagged from the next lookup on, cleared the same way.
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.orgSuspended, false);
  await control.setOrgSuspension("org_a", new Date(now).toISOString());
  now += 29_000;
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.orgSuspended, false, "cached");
  now += 1_001;
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.orgSuspended, true);
  await control.setOrgSuspension("org_a", null);
  now += 30_001;
  assert.equal((await auth.authenticate(`Bearer ${key}`))?.orgSuspended, false, "restored");
  // Within the cache time no request reads the organization's settings again.
  const before = reads;
  for (let i = 0; i < 50; i++) await auth.authenticate(`Bearer ${key}`);
  assert.equal(reads, before);
});
