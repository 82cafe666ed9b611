/**
 * A `--preload` probe of a running gateway's KV commits (what a commit costs the main thread): wraps
 * `Deno.AtomicOperation` to count commits and mutations (by type and first key part) and to
 * time each synchronous `commit()` call by wall clock and by the main thread's own CPU clock
 * (see `kv_commit_cost.ts`). On SIGUSR2 it prints the totals since it started as one line
 * `KVPROBE {json}` on stderr, so a runner can take the difference over a load window.
 *
 *   taskset -c 0 deno run -A --preload=scripts/bench/kv_op_probe.ts scripts/bench/sovra_server.ts …
 *
 * A CPU profile charges `op_kv_atomic_write` with the op's wall time; `opCpuNs` against
 * `opWallNs` says how much of that was the main thread's own work.
 */
import { threadCpuNs } from "./thread_cpu.ts";

const totals: Record<string, number> = { commits: 0, mutations: 0, opCpuNs: 0, opWallNs: 0 };
type Method = (this: Deno.AtomicOperation, ...args: unknown[]) => unknown;
const proto = Deno.AtomicOperation.prototype as unknown as Record<string, Method>;

for (const type of ["set", "sum", "delete"]) {
  const original = proto[type]!;
  proto[type] = function (...args: unknown[]) {
    const name = `${type}:${String((args[0] as Deno.KvKey)[0])}`;
    totals[name] = (totals[name] ?? 0) + 1;
    totals.mutations!++;
    return original.apply(this, args);
  };
}
const commit = proto.commit!;
proto.commit = function (...args: unknown[]) {
  totals.commits!++;
  const cpu = threadCpuNs();
  const wall = performance.now();
  const committed = commit.apply(this, args);
  totals.opWallNs! += (performance.now() - wall) * 1e6;
  totals.opCpuNs! += threadCpuNs() - cpu;
  return committed;
};

Deno.addSignalListener("SIGUSR2", () => {
  console.error(`KVPROBE ${JSON.stringify({ ...totals, mainCpuNs: threadCpuNs() })}`);
});
