/** `GroupCommitter` (src/state/kv/group_commit.ts) at a Deno KV limit. */
import assert from "node:assert/strict";
import { GroupCommitter } from "../../src/state/kv/group_commit.ts";

Deno.test("GroupCommitter — one write over a KV limit fails alone; its batch mates commit", async () => {
  using kv = await Deno.openKv(":memory:");
  const writer = new GroupCommitter(kv);
  const results = await Promise.allSettled([
    writer.write([{ type: "set", key: ["ok", 1], value: "a" }], 8),
    writer.write([{ type: "set", key: ["big"], value: "x".repeat(70_000) }], 70_000),
    writer.write([{ type: "sum", key: ["n"], value: 1n }], 8),
  ]);
  assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
  assert.equal((await kv.get(["ok", 1])).value, "a");
  assert.equal((await kv.get<Deno.KvU64>(["n"])).value?.value, 1n);
  await writer.close();
});
