/**
 * A revocation notice (`forget`) that arrives while a lookup of the same key is in flight: the
 * lookup read the row before the revocation committed, so what it read must not be cached —
 * the key's next request reads again and is refused, not served for the cache's lifetime.
 */
import assert from "node:assert/strict";
import { ApiKeyAuthenticator } from "../../src/auth/api_key_cache.ts";
import { generateApiKey, hashApiKey } from "../../src/auth/api_key_format.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import type { ApiKeyRecord } from "../../src/state/records.ts";
import { closing } from "../helpers/dispose.ts";

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
