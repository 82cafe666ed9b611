/**
 * Key expiry and rotation (additions to the spec's Authentication table, docs/costs.md): a key
 * with `expires_at` works until then and answers 401 `api_key_expired` after it — its own code,
 * not the bad-key one — and a changed expiry bites within the key cache's delay, as a revocation
 * does; a rotation issues a successor (shown once, same name, rpm and narrowing policy) while the
 * old key works until its grace period ends.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { expectError, getWithKey, ManualClock } from "../helpers/api.ts";

const models = [chatModel("acme/chat", "sim-chat")];

async function status(url: string, key: string): Promise<number> {
  const res = await getWithKey(`${url}/v1/models`, key);
  await res.body?.cancel();
  return res.status;
}

Deno.test("key create --expires-at — the key works until then, then 401 api_key_expired", async () => {
  const clock = new ManualClock(Date.now());
  await using h = await startHarness({ models, now: clock.now });
  const created = await h.admin(["key", "create"], { org: h.org, "expires-at": "1h" });
  const expires = Date.parse(String(created.expires_at));
  assert.ok(Math.abs(expires - (Date.now() + 3_600_000)) < 60_000, String(created.expires_at));
  const key = String(created.key);
  assert.equal(await status(h.url, key), 200);
  clock.t = expires - 1;
  assert.equal(await status(h.url, key), 200);
  clock.t = expires;
  const refused = await expectError(await getWithKey(`${h.url}/v1/models`, key), 401);
  assert.equal(refused.code, "api_key_expired");
  assert.ok(refused.message.includes(String(created.expires_at)), refused.message);
  // A chat request is refused alike, before any upstream call.
  h.sim.reset();
  const chat = await h.post("/v1/chat/completions", {
    model: "acme/chat",
    messages: [{ role: "user", content: "hi" }],
  }, { authorization: `Bearer ${key}` });
  assert.equal((await expectError(chat, 401)).code, "api_key_expired");
  assert.equal(h.sim.requests.length, 0);
  // The harness's own key (no expiry) is unaffected; a bad key keeps its own code.
  assert.equal(await status(h.url, h.key), 200);
  const bad = await getWithKey(`${h.url}/v1/models`, `sk-ex-${"A".repeat(43)}`);
  assert.equal((await expectError(bad, 401)).code, "invalid_api_key");
});

Deno.test("key update --expires-at — a changed expiry bites within the key cache's 30 s", async () => {
  const clock = new ManualClock(Date.now());
  await using h = await startHarness({ models, now: clock.now });
  const created = await h.admin(["key", "create"], { org: h.org });
  const key = String(created.key);
  const start = clock.t;
  assert.equal(await status(h.url, key), 200); // cached from here, without an expiry
  const updated = await h.admin(["key", "update"], { id: String(created.id), "expires-at": "5s" });
  const expires = Date.parse(String(updated.expires_at));
  // Past the expiry but within 30 s of the cached lookup: the cached record still serves.
  clock.t = Math.max(expires + 1, start + 1);
  assert.ok(clock.t < start + 30_000);
  assert.equal(await status(h.url, key), 200);
  clock.t = start + 30_001;
  assert.equal(
    (await expectError(await getWithKey(`${h.url}/v1/models`, key), 401)).code,
    "api_key_expired",
  );
  // `never` removes it again (and a past or malformed expiry is refused).
  const renewed = await h.admin(["key", "update"], {
    id: String(created.id),
    "expires-at": "never",
  });
  assert.equal(renewed.expires_at, null);
  clock.t += 30_001;
  assert.equal(await status(h.url, key), 200);
  await assert.rejects(
    h.admin(["key", "update"], { id: String(created.id), "expires-at": "2001-01-01T00:00:00Z" }),
    /must lie in the future/,
  );
  await assert.rejects(
    h.admin(["key", "update"], { id: String(created.id), "expires-at": "tomorrow" }),
    /ISO 8601/,
  );
});

Deno.test("key rotate — a successor shown once; the old key works through its grace period, then expires", async () => {
  const clock = new ManualClock(Date.now());
  await using h = await startHarness({ models, now: clock.now });
  const old = await h.admin(["key", "create"], { org: h.org, name: "production", rpm: "42" });
  await h.store.putKeyPolicy(h.org, String(old.id), { zdr_only: true }, "test");
  const rotated = await h.admin(["key", "rotate"], {
    id: String(old.id),
    "grace-seconds": "3600",
  });
  assert.match(String(rotated.key), /^sk-ex-[0-9A-Za-z]{43}$/);
  assert.notEqual(rotated.key, old.key);
  assert.equal(rotated.name, "production");
  assert.equal(rotated.rpm, 42);
  assert.equal(rotated.rotated_from, old.id);
  const graceEnd = Date.parse(String(rotated.old_key_expires_at));
  assert.ok(Math.abs(graceEnd - (Date.now() + 3_600_000)) < 60_000);
  // The narrowing went with it.
  assert.deepEqual(await h.store.getKeyPolicy(String(rotated.id)), { zdr_only: true });
  // Both work during the grace period; the listing links them and never shows a key.
  assert.equal(await status(h.url, String(old.key)), 200);
  assert.equal(await status(h.url, String(rotated.key)), 200);
  const listed = await h.store.listApiKeys(h.org);
  const previous = listed.find((k) => k.id === old.id)!;
  assert.equal(previous.rotated_to, rotated.id);
  assert.equal(previous.expires_at, rotated.old_key_expires_at);
  assert.equal(listed.find((k) => k.id === rotated.id)?.rotated_from, old.id);
  // A rotated key is not rotated again.
  await assert.rejects(h.admin(["key", "rotate"], { id: String(old.id) }), /already rotated/);
  clock.t = graceEnd;
  assert.equal(
    (await expectError(await getWithKey(`${h.url}/v1/models`, String(old.key)), 401)).code,
    "api_key_expired",
  );
  assert.equal(await status(h.url, String(rotated.key)), 200);
  await assert.rejects(
    h.admin(["key", "rotate"], { id: String(old.id) }),
    /expired; only a working key rotates|already rotated/,
  );
});
