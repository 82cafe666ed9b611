import assert from "node:assert/strict";
import { GroupCommitter } from "../../src/state/group_commit.ts";

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
  // ≤ 900 mutations per atomic: 4000 mutations need at least 5, and far fewer than 2000.
  assert.ok(commits >= 5 && commits < 50, `commits: ${commits}`);
  await writer.close();
});
