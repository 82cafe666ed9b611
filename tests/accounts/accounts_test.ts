/**
 * `src/accounts/`: the control-plane rules the admin CLI and the dashboard share, on a real
 * Deno KV store in memory.
 */
import assert from "node:assert/strict";
import { openTestStore } from "../helpers/kv.ts";
import { AccountError } from "../../src/accounts/account_error.ts";
import { createOrganization, topUpCredits } from "../../src/accounts/orgs.ts";
import { issueApiKey, listApiKeys, revokeApiKey } from "../../src/accounts/api_keys.ts";
import { dailyUsage, recentRequests } from "../../src/accounts/usage.ts";
import { hashApiKey, isWellFormedApiKey } from "../../src/auth/api_key_format.ts";

const refused = (kind: AccountError["kind"]) => (e: unknown) =>
  e instanceof AccountError && e.kind === kind;

Deno.test("createOrganization / topUpCredits — credits in micro-EUR, zero or unknown refused", async () => {
  await using store = await openTestStore();
  const org = await createOrganization(store, { name: " Acme ", creditsMicroEur: 5n });
  assert.equal(org.name, "Acme");
  assert.match(org.id, /^org_/);
  assert.equal(await topUpCredits(store, org.id, 7n), 12n);
  await assert.rejects(topUpCredits(store, org.id, 0n), refused("invalid"));
  await assert.rejects(topUpCredits(store, "org_missing", 1n), refused("not_found"));
  await assert.rejects(
    createOrganization(store, { name: " ", creditsMicroEur: 0n }),
    refused("invalid"),
  );
});

Deno.test("issueApiKey — a well-formed key shown once, stored as its hash; listings never carry either", async () => {
  await using store = await openTestStore();
  const org = await createOrganization(store, { name: "Acme", creditsMicroEur: 0n });
  const { record, key } = await issueApiKey(store, { org: org.id, name: "ci", rpm: 60 });
  assert.ok(isWellFormedApiKey(key));
  assert.equal(record.hash, hashApiKey(key));
  assert.equal(record.prefix, key.slice(0, 10));
  const listed = await listApiKeys(store, org.id);
  assert.equal(listed.length, 1);
  assert.equal("hash" in listed[0]!, false);
  assert.ok(!JSON.stringify(listed).includes(key));
  await assert.rejects(
    issueApiKey(store, { org: org.id, name: null, rpm: 0 }),
    refused("invalid"),
  );
  await assert.rejects(
    issueApiKey(store, { org: "org_x", name: null, rpm: 1 }),
    refused("not_found"),
  );
  assert.equal((await revokeApiKey(store, record.id)).revoked, true);
  await assert.rejects(revokeApiKey(store, "key_missing"), refused("not_found"));
});

Deno.test("recentRequests / dailyUsage — limits checked, every aggregate present", async () => {
  await using store = await openTestStore();
  const org = await createOrganization(store, { name: "Acme", creditsMicroEur: 0n });
  assert.deepEqual(await recentRequests(store, org.id, 10), []);
  await assert.rejects(recentRequests(store, org.id, 0), refused("invalid"));
  await assert.rejects(recentRequests(store, org.id, 1001), refused("invalid"));
  const usage = await dailyUsage(store, org.id, "2026-11-24");
  assert.deepEqual(usage, {
    requests: 0,
    cost_micro_eur: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    audio_seconds: 0,
    characters: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    cache_savings_micro_eur: 0,
    cache_surcharge_micro_eur: 0,
  });
  await assert.rejects(dailyUsage(store, org.id, "24.11.2026"), refused("invalid"));
});

Deno.test("keyName — trimmed, 1 to 64 characters, no control character (C0, DEL, C1, line separators, bidi overrides)", async () => {
  await using store = await openTestStore();
  const org = await createOrganization(store, { name: "Acme", creditsMicroEur: 0n });
  const issue = (name: string | null) => issueApiKey(store, { org: org.id, name, rpm: 60 });
  assert.equal((await issue(null)).record.name, null);
  assert.equal((await issue("  ci  ")).record.name, "ci");
  assert.equal((await issue("é".repeat(64))).record.name, "é".repeat(64));
  assert.equal(
    (await issue("🔑".repeat(64))).record.name,
    "🔑".repeat(64),
    "characters, not UTF-16 units",
  );
  const bad = [
    "a\u0000b",
    "a\u001fb",
    "a\u007fb",
    "a\u0085b",
    "a\u2028b",
    "a\u202eb",
    "a\u2066b",
    " ",
    "x".repeat(65),
  ];
  for (const name of bad) {
    await assert.rejects(
      issue(name),
      (e: unknown) => e instanceof AccountError && e.kind === "invalid" && e.param === "name",
      JSON.stringify(name),
    );
  }
  assert.equal((await listApiKeys(store, org.id)).length, 4, "nothing refused was stored");
});
