/**
 * Crash safety with one admission row per group commit, on a
 * Deno KV file and a real process killed with SIGKILL (`fixtures/admission_crash_child.ts`):
 * a row with requests settled, one whose settle was queued but not committed and one never
 * settled; a row whose requests all settled; an admission alone in the commit that carried
 * settles; and a record in the format written before rows. Another instance on the same file
 * keeps its own open row while its lease runs. Recovery must bill each unsettled request once
 * from its estimate, leave every settled one as it was, and leave every request a record.
 */
import assert from "node:assert/strict";
import { createKvStore } from "../../src/state/kv/kv_store.ts";
import type { RequestRecord } from "../../src/state/records.ts";
import { minuteOf } from "../../src/state/minute.ts";
import { chatRecord } from "../helpers/request_record.ts";

const CHILD = new URL("./fixtures/admission_crash_child.ts", import.meta.url).pathname;
let seq = 0;

/** A request's settled record (tokens vary, so each cost differs from its estimate). */
const settledRecord = (org: string) => chatRecord(org, Date.now() + seq, 100 + seq++);

/** Its admission record: fewer tokens estimated, status 0, recovered. */
const estimateOf = (r: RequestRecord): RequestRecord => ({
  ...r,
  status: 0,
  prompt_tokens: 10,
  total_tokens: 10,
  completion_tokens: null,
  cost_micro_eur: 10,
  estimated: true,
  recovered: true,
});

Deno.test("crash safety — kill -9 between admission and settle on a KV file: each request billed once, every one recorded", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sovra-rows-crash-" });
  const kvPath = `${dir}/sovra.kv`;
  const store = createKvStore(await Deno.openKv(kvPath), 0);
  try {
    await store.createOrg({ id: "org_a", name: "A", created: new Date().toISOString() }, 0n);
    const rowA = Array.from({ length: 4 }, () => settledRecord("org_a"));
    const rowB = Array.from({ length: 2 }, () => settledRecord("org_a"));
    const alone = settledRecord("org_a");
    const legacy = settledRecord("org_a");
    const settled = Object.fromEntries([...rowA, ...rowB, alone].map((r) => [r.id, r]));

    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CHILD],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify({
      kvPath,
      rowA: rowA.map(estimateOf),
      rowB: rowB.map(estimateOf),
      alone: estimateOf(alone),
      settled,
    })));
    await writer.close();
    const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let said = "";
    while (!said.includes("ready")) {
      const { value, done } = await out.read();
      if (done) break;
      said += value;
    }
    assert.match(said, /ready/);
    child.kill("SIGKILL");
    await child.status;
    await out.cancel();

    // An admission in the format written before rows, by the same dead instance.
    await store.kv.set(["admission", legacy.id], {
      instance: "inst_dead",
      record: estimateOf(legacy),
    });
    // A live instance on the same file, its row open and its lease running.
    const live = [settledRecord("org_a"), settledRecord("org_a")];
    await store.renewLease("inst_live", Date.now() + 3_600_000);
    await Promise.all(live.map((r) =>
      store.countRequest("key_a", minuteOf(Date.now()), undefined, {
        instance: "inst_live",
        record: estimateOf(r),
      })
    ));

    // A third instance recovers once the dead one's lease has ended (its `now` is past it).
    const later = Date.now() + 60_000;
    const [first, second] = await Promise.all([
      store.recoverAdmissions("inst_other", later),
      store.recoverAdmissions("inst_next", later),
    ]);
    const unsettled = [rowA[2]!, rowA[3]!, alone, legacy];
    assert.equal(first + second, unsettled.length, "each unsettled request once");
    assert.equal(await store.recoverAdmissions("inst_other", later), 0);

    // The live instance's row is untouched; it settles its own requests.
    const openRows = await Array.fromAsync(store.kv.list<{ instance: string }>({
      prefix: ["admission"],
    }));
    assert.deepEqual(openRows.map((e) => e.value.instance), ["inst_live"]);
    await Promise.all(live.map((r) => store.settle(r)));
    assert.equal((await Array.fromAsync(store.kv.list({ prefix: ["admission"] }))).length, 0);

    const records = new Map((await store.listRequests("org_a", 100)).map((r) => [r.id, r]));
    const expected = new Map<string, RequestRecord>();
    for (const r of [rowA[0]!, rowA[1]!, ...rowB, ...live]) expected.set(r.id, r);
    for (const r of unsettled) expected.set(r.id, estimateOf(r));
    assert.deepEqual(records, expected, "settled as written, the others from their estimates");
    const spent = [...expected.values()].reduce((sum, r) => sum + r.cost_micro_eur, 0);
    assert.equal((await store.getOrg("org_a"))?.spent_micro_eur, spent, "none billed twice");
    const day = new Date().toISOString().slice(0, 10);
    assert.equal((await store.dailyUsage("org_a", day)).requests, expected.size);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
