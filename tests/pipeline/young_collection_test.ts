/**
 * A finished stream's watchdog and upstream reader do not keep what they point to past a
 * young-generation collection. With TypeScript parameter properties, their `this`-capturing
 * arrow fields were made in the constructor, and such an instance stayed alive until the next
 * full collection: every finished stream's state was promoted to the old generation
 * (docs/performance.md, "Finished streams collected young"). Runs tests/fixtures/young_collection.ts in a process
 * with `--expose-gc`.
 */
import assert from "node:assert/strict";

Deno.test("finished stream parts — a young-generation collection collects what they point to", async () => {
  const script = new URL("../fixtures/young_collection.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--v8-flags=--expose-gc", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const collected = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, number>;
  // All 500 of each are garbage at the collection; a few may be missed, a retained kind
  // loses nearly all of them.
  assert.ok(collected.watchdog! >= 450, `watchdogs' payloads collected: ${collected.watchdog}/500`);
  assert.ok(
    collected.eventBatches! >= 450,
    `eventBatches' payloads collected: ${collected.eventBatches}/500`,
  );
});
