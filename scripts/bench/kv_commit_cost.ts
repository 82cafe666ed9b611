/**
 * What one Deno KV commit costs the main thread, and whether that is CPU or time blocked
 * (docs/performance.md, "Group commits, paced"): `kv.atomic()…commit()` on a KV file, N sequential commits per mix,
 * the mixes alternating for R rounds. Per commit it reports
 *
 * - `op wall`: the synchronous `commit()` call (JS + `op_kv_atomic_write` until it returns its
 *   promise), by `performance.now()`; this is what a CPU profile charges to the op;
 * - `op CPU`: the same call by the main thread's own CPU clock (`CLOCK_THREAD_CPUTIME_ID`
 *   through libc: `/proc/thread-self/schedstat` is only brought up to date at a scheduler tick
 *   while the thread runs, far too coarse for one call);
 * - `main CPU`: the main thread's CPU for the whole loop (building the operation, the call,
 *   the wake-up when it is durable) over N;
 * - `others CPU`: every other thread of the process over N (the KV writer thread `sw-0`,
 *   tokio, V8's workers), from `/proc/self/task/<tid>/schedstat`, read while they sleep.
 *
 * op wall well above op CPU means the main thread was switched out inside the op (with the
 * process on one core: the writer thread it just woke). The 1/10/100-sum mixes separate the
 * fixed cost of a commit from the cost of a mutation; the set mixes the cost of a byte.
 *
 *   deno run -A scripts/bench/kv_commit_cost.ts [--kv PATH] [--commits N] [--rounds R]
 *   taskset -c 0 deno run -A scripts/bench/kv_commit_cost.ts   # the benchmark's one core
 */
import { parseArgs } from "node:util";
import { threadCpuNs } from "./thread_cpu.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    kv: { type: "string" },
    commits: { type: "string", default: "400" },
    rounds: { type: "string", default: "2" },
  },
});
const commits = Number(values.commits);
const rounds = Number(values.rounds);

/** CPU nanoseconds of every thread but the main one (sleeping threads' figures are exact). */
function otherThreadsCpuNs(): number {
  let total = 0;
  for (const task of Deno.readDirSync("/proc/self/task")) {
    if (task.name === String(Deno.pid)) continue;
    const stat = Deno.readTextFileSync(`/proc/self/task/${task.name}/schedstat`);
    total += Number(stat.split(" ")[0]);
  }
  return total;
}

/** A request record of the size the gateway writes (~450 bytes serialised). */
function requestRecord(i: number) {
  return {
    id: `req_01JDQ${i.toString(36).padStart(10, "0")}ABCDEFGH`,
    created: "2026-11-25T04:00:00.000Z",
    org: "org_7f3a9c2e",
    key_id: "key_9b1c4d",
    user: null,
    endpoint: "chat",
    requested_model: "bench/fast",
    served_model: "bench/fast",
    provider: "sim",
    status: 200,
    latency_ms: 12,
    prompt_tokens: 14,
    completion_tokens: 9,
    total_tokens: 23,
    audio_seconds: null,
    characters: null,
    cost_micro_eur: 41,
    estimated: false,
    stream: false,
    fallbacks: 0,
  };
}

interface Mix {
  name: string;
  mutations: number;
  build(op: Deno.AtomicOperation, i: number): void;
}

const padding = (bytes: number) => "x".repeat(bytes);
const MIXES: Mix[] = [
  { name: "1 sum", mutations: 1, build: (op) => op.sum(["a", 0], 1n) },
  {
    name: "10 sums",
    mutations: 10,
    build: (op) => {
      for (let k = 0; k < 10; k++) op.sum(["a", k], 1n);
    },
  },
  {
    name: "100 sums",
    mutations: 100,
    build: (op) => {
      for (let k = 0; k < 100; k++) op.sum(["a", k], 1n);
    },
  },
  { name: "1 set, 200 B", mutations: 1, build: (op, i) => op.set(["s", i], padding(200)) },
  { name: "1 set, 20 KB", mutations: 1, build: (op, i) => op.set(["s", i], padding(20_000)) },
  {
    name: "10 sets, 200 B",
    mutations: 10,
    build: (op, i) => {
      for (let k = 0; k < 10; k++) op.set(["s", i, k], padding(200));
    },
  },
  {
    // A closed-loop group commit of the gateway: eight settles (request records and their
    // merged sums), the rate increment, one admission row of eight records, one row closed.
    name: "gateway-like",
    mutations: 14,
    build: (op, i) => {
      const records = Array.from({ length: 8 }, (_, k) => requestRecord(i * 8 + k));
      for (const r of records) op.set(["req", r.org, r.id], r);
      op.sum(["credit", "org_7f3a9c2e", "spent"], 328n);
      op.sum(["rl", 29_400_000, "key_9b1c4d"], 8n);
      op.sum(["usage_day", "org_7f3a9c2e", "2026-11-25", "requests"], 8n);
      op.sum(["usage_day", "org_7f3a9c2e", "2026-11-25", "cost_micro_eur"], 328n);
      op.set(["admission", records[0]!.id], { instance: "bench", records });
      if (i > 0) op.delete(["admission", requestRecord((i - 1) * 8).id]);
    },
  },
];

const dir = values.kv === undefined ? await Deno.makeTempDir({ prefix: "kv-commit-" }) : undefined;
const kv = await Deno.openKv(values.kv ?? `${dir}/kv.sqlite`);
console.log(
  `${commits} commits per mix and round, ${rounds} rounds; µs per commit (op = the synchronous commit() call)`,
);
console.log("mix            | muts | op wall p50 / mean | op CPU | main CPU | others CPU | wall");
try {
  let base = 0;
  for (let round = 0; round < rounds; round++) {
    for (const mix of MIXES) {
      const opWall: number[] = [];
      let opCpu = 0;
      const cpu0 = threadCpuNs();
      const others0 = otherThreadsCpuNs();
      const wall0 = performance.now();
      for (let i = 0; i < commits; i++) {
        const op = kv.atomic();
        mix.build(op, base + i);
        const c = threadCpuNs();
        const w = performance.now();
        const committed = op.commit();
        opWall.push((performance.now() - w) * 1000);
        opCpu += threadCpuNs() - c;
        await committed;
      }
      const wall = (performance.now() - wall0) * 1000 / commits;
      const mainCpu = (threadCpuNs() - cpu0) / 1000 / commits;
      const othersCpu = (otherThreadsCpuNs() - others0) / 1000 / commits;
      base += commits;
      opWall.sort((a, b) => a - b);
      const mean = opWall.reduce((s, x) => s + x, 0) / commits;
      const f = (x: number) => x.toFixed(0).padStart(5);
      console.log(
        `${mix.name.padEnd(14)} | ${String(mix.mutations).padStart(4)} | ${
          f(opWall[commits >> 1]!)
        } / ${f(mean)}      | ${f(opCpu / 1000 / commits)}  | ${f(mainCpu)}    | ${
          f(othersCpu)
        }      | ${f(wall)}`,
      );
    }
  }
} finally {
  kv.close();
  if (dir !== undefined) await Deno.remove(dir, { recursive: true });
}
