import assert from "node:assert/strict";
import { sequentialId, timeOrderedId } from "../../src/util/ids.ts";

Deno.test("sequentialId — ids of one millisecond sort in creation order and stay unique", () => {
  const now = Date.now() + 60_000;
  const ids = Array.from({ length: 50_000 }, () => sequentialId("aud_", now));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.every((id) => id.length === "aud_".length + 20), ids[0]);
});

Deno.test("sequentialId — a later millisecond sorts after every earlier id", () => {
  const now = Date.now() + 120_000;
  const first = sequentialId("led_", now);
  const second = sequentialId("led_", now + 1);
  assert.ok(first < second, `${first} ${second}`);
});

Deno.test("timeOrderedId — ids of one millisecond are random, not sequential", () => {
  const now = Date.now();
  const ids = Array.from({ length: 200 }, () => timeOrderedId("req_", now));
  assert.notDeepEqual([...ids].sort(), ids);
});
