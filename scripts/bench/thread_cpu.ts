/**
 * The calling thread's own CPU clock (`CLOCK_THREAD_CPUTIME_ID` through libc), exact to the
 * nanosecond: `/proc/thread-self/schedstat` is only brought up to date at a scheduler tick while
 * the thread runs, far too coarse for one call. Used by the KV commit probes.
 */
const CLOCK_THREAD_CPUTIME_ID = 3;
const libc = Deno.dlopen("libc.so.6", {
  clock_gettime: { parameters: ["i32", "buffer"], result: "i32" },
});
const timespec = new BigInt64Array(2);
const timespecBytes = new Uint8Array(timespec.buffer);

/** The calling thread's CPU time in nanoseconds. */
export function threadCpuNs(): number {
  libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, timespecBytes);
  return Number(timespec[0]) * 1e9 + Number(timespec[1]);
}
