import assert from "node:assert/strict";
import { GroupCommitter } from "../../src/state/kv/group_commit.ts";

Deno.test("GroupCommitter — concurrent writes land exactly, in few commits", async () => {
  using kv = await Deno.openKv(":memory:");
  const writer = new GroupCommitter(kv);
  let commits = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    commits++;
    return atomic();
  };
  await Promise.all(
    Array.from(
      { length: 2000 },
      (_, i) =>
        writer.write([{ type: "sum", key: ["n"], value: BigInt(i + 1) }, {
          type: "set",
          key: ["row", i],
          value: i,
        }], 32),
    ),
  );
  const total = await kv.get<Deno.KvU64>(["n"]);
  assert.equal(total.value?.value, (2000n * 2001n) / 2n);
  let rows = 0;
  for await (const _ of kv.list({ prefix: ["row"] })) rows++;
  assert.equal(rows, 2000);
  // ≤ 256 mutations per atomic (a bounded main-thread pause): 4000 mutations need at least
  // 16, and far fewer than 2000.
  assert.ok(commits >= 16 && commits < 80, `commits: ${commits}`);
  await writer.close();
});

Deno.test("GroupCommitter — sums to one key are merged, distinct keys stay apart, wrap-around holds", async () => {
  using kv = await Deno.openKv(":memory:");
  const writer = new GroupCommitter(kv);
  const max = (1n << 64n) - 1n;
  await Promise.all([
    writer.write([{ type: "sum", key: ["a"], value: max }], 8),
    writer.write([{ type: "sum", key: ["a"], value: 2n }], 8),
    writer.write([{ type: "sum", key: ["b", 1n], value: 5n }], 8),
    writer.write([{ type: "sum", key: ["b", 1], value: 7n }], 8),
    writer.write([{ type: "sum", key: ["b", "1"], value: 11n }], 8),
    writer.write([{ type: "sum", key: ["b1"], value: 13n }], 8),
  ]);
  assert.equal((await kv.get<Deno.KvU64>(["a"])).value?.value, 1n);
  assert.equal((await kv.get<Deno.KvU64>(["b", 1n])).value?.value, 5n);
  assert.equal((await kv.get<Deno.KvU64>(["b", 1])).value?.value, 7n);
  assert.equal((await kv.get<Deno.KvU64>(["b", "1"])).value?.value, 11n);
  assert.equal((await kv.get<Deno.KvU64>(["b1"])).value?.value, 13n);
  await writer.close();
});
