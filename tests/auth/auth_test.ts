/**
 * Spec "Authentication": `Authorization: Bearer sk-ex-<43 base62>`; bad or revoked key → 401
 * with the error object; revocation effective within 30 s; /healthz needs no key.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { chatBody, closeWithoutKv, expectError, getWithKey, ManualClock } from "../helpers/api.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function base62(n: number): string {
  let out = "";
  for (const b of crypto.getRandomValues(new Uint8Array(n))) out += BASE62[b % 62];
  return out;
}

Deno.test("auth — missing, non-Bearer, malformed, unknown and revoked keys all get the same 401", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const second = await h.admin(["key", "create"], { org: h.org });
  await h.admin(["key", "revoke"], { id: String(second.id) });
  const body43 = h.key.slice(6);
  const headers: Array<[string, string | undefined]> = [
    ["missing header", undefined],
    ["basic scheme", `Basic ${btoa(`user:${h.key}`)}`],
    ["token without scheme", h.key],
    ["wrong prefix", `Bearer sk-xx-${body43}`],
    ["48 characters", `Bearer ${h.key.slice(0, 48)}`],
    ["50 characters", `Bearer ${h.key}A`],
    ["non-base62 character", `Bearer sk-ex-${body43.slice(0, 20)}_${body43.slice(21)}`],
    ["well-formed but unknown", `Bearer sk-ex-${base62(43)}`],
    ["revoked", `Bearer ${String(second.key)}`],
  ];
  const bodies = new Map<string, string>();
  for (const [label, header] of headers) {
    const init = header === undefined ? {} : { headers: { authorization: header } };
    const models = await fetch(`${h.url}/v1/models`, init);
    const err = await expectError(models, 401).catch((e) => {
      throw new Error(`${label}: ${(e as Error).message}`);
    });
    assert.ok(!err.text.includes(h.key.slice(6, 20)), `${label}: the error echoes the key`);
    bodies.set(label, err.text);
    const chat = await fetch(`${h.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(init.headers ?? {}) },
      body: JSON.stringify(chatBody("acme/chat")),
    });
    await expectError(chat, 401);
  }
  // No hint whether a key exists: unknown, malformed and revoked keys answer byte-identically.
  const unknown = bodies.get("well-formed but unknown");
  for (const label of ["wrong prefix", "48 characters", "50 characters", "revoked"]) {
    assert.equal(bodies.get(label), unknown, `${label} differs from an unknown key`);
  }
  assert.equal(h.sim.requests.length, 0, "a refused request reached the upstream");
});

Deno.test("auth — the harness key (well-formed, 49 characters) is accepted", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  assert.match(h.key, /^sk-ex-[0-9A-Za-z]{43}$/);
  assert.equal(h.key.length, 49);
  const res = await getWithKey(`${h.url}/v1/models`, h.key);
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("healthz — answers 200 without a key, with a bad key, and while the KV is closed", async () => {
  const h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  let kvClosed = false;
  try {
    const plain = await fetch(`${h.url}/healthz`);
    assert.equal(plain.status, 200);
    await plain.body?.cancel();
    const bad = await getWithKey(`${h.url}/healthz`, "sk-ex-nope");
    assert.equal(bad.status, 200);
    await bad.body?.cancel();
    await h.flushed();
    h.store.kv.close();
    kvClosed = true;
    const closed = await fetch(`${h.url}/healthz`);
    assert.equal(closed.status, 200);
    await closed.body?.cancel();
  } finally {
    if (kvClosed) await closeWithoutKv(h);
    else await h.close();
  }
});

Deno.test("auth — a revoked key keeps working from the cache at most until 30 s, then 401", async () => {
  const clock = new ManualClock();
  await using h = await startHarness({
    models: [chatModel("acme/chat", "sim-chat")],
    now: clock.now,
  });
  const created = await h.admin(["key", "create"], { org: h.org });
  const key = String(created.key);
  const first = await getWithKey(`${h.url}/v1/models`, key);
  assert.equal(first.status, 200);
  await first.body?.cancel();

  const revoked = await h.admin(["key", "revoke"], { id: String(created.id) });
  assert.deepEqual(revoked, { id: created.id, revoked: true });

  clock.advance(29_000);
  const cached = await getWithKey(`${h.url}/v1/models`, key);
  assert.equal(cached.status, 200, "the key lookup was not cached (or the TTL is < 29 s)");
  await cached.body?.cancel();

  clock.advance(1_001);
  await expectError(await getWithKey(`${h.url}/v1/models`, key), 401);
  // And it stays refused.
  clock.advance(60_000);
  await expectError(await getWithKey(`${h.url}/v1/models`, key), 401);
  // The harness's own key is unaffected.
  const other = await getWithKey(`${h.url}/v1/models`, h.key);
  assert.equal(other.status, 200);
  await other.body?.cancel();
});

Deno.test("auth — a key created while the gateway runs works at once, even after a miss", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  const created = await h.admin(["key", "create"], { org: h.org, name: "late" });
  const res = await h.post("/v1/chat/completions", chatBody("acme/chat"), {
    authorization: `Bearer ${String(created.key)}`,
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();

  // A key that was tried (and refused) before it existed must not stay refused from a cache.
  const chosen = `sk-ex-${base62(43)}`;
  await expectError(await getWithKey(`${h.url}/v1/models`, chosen), 401);
  await h.store.createApiKey({
    id: "key_chosen0001",
    org: h.org,
    name: null,
    rpm: 100,
    hash: createHash("sha256").update(chosen).digest("hex"),
    prefix: chosen.slice(0, 10),
  });
  const after = await getWithKey(`${h.url}/v1/models`, chosen);
  assert.equal(after.status, 200);
  await after.body?.cancel();
});

Deno.test("auth — the Bearer scheme name is case-insensitive", async () => {
  await using h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  for (const scheme of ["bearer", "BEARER", "Bearer"]) {
    const res = await fetch(`${h.url}/v1/models`, {
      headers: { authorization: `${scheme} ${h.key}` },
    });
    assert.equal(res.status, 200, scheme);
    await res.body?.cancel();
  }
});
