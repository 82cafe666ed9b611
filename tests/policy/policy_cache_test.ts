/**
 * The effective-policy cache: one entry per (organization, key), read again after `ttlMs` or
 * once `invalidate` forgets it (one organization's entries, or all), and never served while
 * stale unless the store fails. Through HTTP: a policy edit plans the next request under the
 * new policy once the cache forgets the old one (at once with `invalidate`, else after 30 s).
 */
import assert from "node:assert/strict";
import { PolicyCache } from "../../src/policy/policy_cache.ts";
import {
  DEFAULT_ORG_POLICY,
  type KeyPolicy,
  type OrgPolicy,
} from "../../src/state/policy_store.ts";
import { chatModel } from "../helpers/harness.ts";
import { mixedRoutes, startPolicyHarness } from "./policy_support.ts";

function fakeStore() {
  const store = {
    reads: [] as string[],
    orgs: new Map<string, OrgPolicy>(),
    keys: new Map<string, KeyPolicy>(),
    fail: false,
    getOrgPolicy(org: string) {
      store.reads.push(org);
      return store.fail ? Promise.reject(new Error("down")) : Promise.resolve(store.orgs.get(org));
    },
    getKeyPolicy(key: string) {
      return store.fail ? Promise.reject(new Error("down")) : Promise.resolve(store.keys.get(key));
    },
  };
  return store;
}

Deno.test("policy cache — one entry per organization and key; invalidate(org) forgets only that organization's", async () => {
  const store = fakeStore();
  store.orgs.set("org_a", { ...DEFAULT_ORG_POLICY, zdr_only: true });
  const cache = new PolicyCache(store, 30_000, () => 0);
  const a1 = await cache.policyOf("org_a", "key_1");
  const a2 = await cache.policyOf("org_a", "key_2");
  const b1 = await cache.policyOf("org_b", "key_3");
  assert.equal(a1.zdrOnly, "organization");
  assert.equal(b1.zdrOnly, null);
  assert.deepEqual(store.reads, ["org_a", "org_a", "org_b"]);
  // Cached: the same objects, no read.
  assert.equal(await cache.policyOf("org_a", "key_1"), a1);
  assert.equal(await cache.policyOf("org_a", "key_2"), a2);
  assert.equal(store.reads.length, 3);

  store.orgs.set("org_a", { ...DEFAULT_ORG_POLICY, sovereignty: "strict_only" });
  cache.invalidate("org_a");
  const after = await cache.policyOf("org_a", "key_1");
  assert.equal(after.zdrOnly, null, "read again: the edit applies");
  assert.equal(after.strictOnly, "organization");
  assert.equal((await cache.policyOf("org_a", "key_2")).strictOnly, "organization");
  assert.equal(await cache.policyOf("org_b", "key_3"), b1, "another organization's entry stays");
  assert.deepEqual(store.reads, ["org_a", "org_a", "org_b", "org_a", "org_a"]);

  cache.invalidate();
  await cache.policyOf("org_b", "key_3");
  assert.equal(store.reads.at(-1), "org_b", "invalidate() forgets every organization");
  cache.invalidate("org_unknown"); // nothing cached: nothing happens
});

Deno.test("policy cache — an entry answers until ttlMs, then the store; stale only while the store fails", async () => {
  let now = 0;
  const store = fakeStore();
  store.keys.set("key_1", { blocked_providers: ["p1"] } as KeyPolicy);
  const cache = new PolicyCache(store, 30_000, () => now, 60_000);
  assert.equal((await cache.policyOf("org_a", "key_1")).blockedProviders.get("p1"), "key");
  store.keys.set("key_1", { blocked_providers: ["p2"] } as KeyPolicy);
  now = 29_999;
  assert.equal((await cache.policyOf("org_a", "key_1")).blockedProviders.has("p1"), true);
  now = 30_000;
  const fresh = await cache.policyOf("org_a", "key_1");
  assert.deepEqual([...fresh.blockedProviders.keys()], ["p2"], "expired: read again");
  store.fail = true;
  now = 60_000 + 59_999;
  assert.equal(await cache.policyOf("org_a", "key_1"), fresh, "the store fails: stale entry");
  now = 60_000 + 60_000;
  await assert.rejects(cache.policyOf("org_a", "key_1"), /down/, "too stale: fail closed");
  await assert.rejects(cache.policyOf("org_a", "key_9"), /down/, "nothing cached: fail closed");
});

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "Hi" }] });

Deno.test("policy change — an invalidated organization's next request is planned under the edited policy", async () => {
  let now = Date.now();
  await using h = await startPolicyHarness(
    [chatModel("acme/mixed", [], { routes: mixedRoutes("fail-503", "prag-chat") })],
    { now: () => now },
  );
  // The policy is read and cached: the strict primary fails, the pragmatic standby serves.
  const open = await h.post("/v1/chat/completions", chat("acme/mixed"));
  assert.equal(open.status, 200);
  await open.body?.cancel();
  assert.equal(h.prag.requests.length, 1);

  await h.setPolicy({ sovereignty: "strict_only" });
  h.gateway.deps.policies.invalidate(h.org);
  const strict = await h.post("/v1/chat/completions", chat("acme/mixed"));
  assert.equal(strict.status, 502, "strict-only: the primary's failure, the standby not tried");
  await strict.body?.cancel();
  assert.equal(h.prag.requests.length, 1, "the pragmatic provider was not called again");

  // Without invalidate, the edit applies once the entry is 30 s old.
  await h.setPolicy({});
  now += 29_000;
  const cached = await h.post("/v1/chat/completions", chat("acme/mixed"));
  assert.equal(cached.status, 502, "still cached at 29 s");
  await cached.body?.cancel();
  now += 2_000;
  const reopened = await h.post("/v1/chat/completions", chat("acme/mixed"));
  assert.equal(reopened.status, 200);
  await reopened.body?.cancel();
  assert.equal(h.prag.requests.length, 2);
});

Deno.test("policy cache — while the store is away, an entry within the stale bound answers without a read", async () => {
  let now = 0;
  const store = Object.assign(fakeStore(), { isAway: false, away: () => store.isAway });
  const cache = new PolicyCache(store, 30_000, () => now, 60_000);
  const first = await cache.policyOf("org_a", "key_1");
  store.isAway = true;
  now = 30_000;
  assert.equal(await cache.policyOf("org_a", "key_1"), first);
  assert.deepEqual(store.reads, ["org_a"], "no call to an absent store");
  await cache.policyOf("org_b", "key_2");
  assert.deepEqual(store.reads, ["org_a", "org_b"], "nothing cached: the store is tried");
  store.isAway = false;
  await cache.policyOf("org_a", "key_1");
  assert.deepEqual(store.reads, ["org_a", "org_b", "org_a"], "back: read again");
});
