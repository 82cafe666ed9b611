/**
 * The router-pin area's semantics (`src/state/router_pin_store.ts`) on Deno KV and on
 * PostgreSQL: pins read back by key until they expire, the last write of a key wins, missing
 * and expired keys are absent, batches larger than one KV read or write work.
 */
import assert from "node:assert/strict";
import type { RouterPinStore } from "../../src/state/router_pin_store.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { openPgStore } from "../../src/state/postgres/pg_store.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { closing } from "../helpers/dispose.ts";

export async function routerPinContract(pins: RouterPinStore): Promise<void> {
  const now = Date.now();
  assert.deepEqual(await pins.getRouterPins([], now), []);
  await pins.putRouterPins([
    { key: "t\u001forg_a\u001fp\u001fcall_1", model: "m/large", expires: now + 60_000 },
    { key: "u\u001forg_a\u001fp\u001falice", model: "m/small", expires: now + 60_000 },
    { key: "t\u001forg_a\u001fp\u001fcall_old", model: "m/large", expires: now - 1 },
  ]);
  const read = await pins.getRouterPins(
    [
      "t\u001forg_a\u001fp\u001fcall_1",
      "u\u001forg_a\u001fp\u001falice",
      "t\u001forg_a\u001fp\u001fcall_old",
      "t\u001forg_b\u001fp\u001fcall_1",
    ],
    now,
  );
  assert.deepEqual(
    read.map((p) => [p.key, p.model, p.expires]).sort(),
    [
      ["t\u001forg_a\u001fp\u001fcall_1", "m/large", now + 60_000],
      ["u\u001forg_a\u001fp\u001falice", "m/small", now + 60_000],
    ].sort(),
    "unexpired pins of the keys asked for; expired and unknown keys absent",
  );
  // The last write of a key wins (also twice in one batch).
  await pins.putRouterPins([
    { key: "u\u001forg_a\u001fp\u001falice", model: "m/medium", expires: now + 30_000 },
    { key: "u\u001forg_a\u001fp\u001falice", model: "m/large", expires: now + 90_000 },
  ]);
  assert.deepEqual(await pins.getRouterPins(["u\u001forg_a\u001fp\u001falice"], now), [
    { key: "u\u001forg_a\u001fp\u001falice", model: "m/large", expires: now + 90_000 },
  ]);
  // Read later than the expiry: absent.
  assert.deepEqual(await pins.getRouterPins(["t\u001forg_a\u001fp\u001fcall_1"], now + 60_001), []);
  // More keys than one KV read (10) and write batch.
  const many = Array.from({ length: 1_234 }, (_, i) => ({
    key: `t\u001forg_c\u001fp\u001fcall_${i}`,
    model: `m/${i % 3}`,
    expires: now + 60_000,
  }));
  await pins.putRouterPins(many);
  const back = await pins.getRouterPins(many.map((p) => p.key), now);
  assert.equal(back.length, many.length);
  const byKey = new Map(back.map((p) => [p.key, p.model]));
  for (const p of many) assert.equal(byKey.get(p.key), p.model);
}

Deno.test("router-pin area — Deno KV keeps the contract", async () => {
  await using store = closing(await openKvStore(":memory:"));
  assert.ok(store.routerPins);
  await routerPinContract(store.routerPins);
});

Deno.test("router-pin area — PostgreSQL keeps the contract", async () => {
  await using cluster = await startPostgres();
  await using store = closing(
    await openPgStore(await cluster.database(), { spillPath: undefined }),
  );
  await routerPinContract(store.routerPins);
});
