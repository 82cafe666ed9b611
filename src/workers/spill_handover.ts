/**
 * Spill files of isolates that no longer run. With PostgreSQL each further isolate keeps its own
 * spill file (`<SOVRA_SPILL_PATH>.worker-<i>`), replayed by the isolate of that index at its
 * next start. When a process starts with fewer isolates than the one before (SOVRA_WORKERS
 * lowered, or its default — the machine's cores — smaller), no isolate has those indexes: their
 * settles would never be billed. Before the store opens, the primary moves them into its own
 * spill file, which it replays (idempotently: a request already written is skipped).
 */
import type { Logger } from "../log.ts";

/** Appends every `<spillPath>.worker-<i>` with i ≥ `workers` to `spillPath`, then removes it. */
export async function adoptOrphanedSpills(
  spillPath: string,
  workers: number,
  log: Logger,
): Promise<number> {
  const slash = spillPath.lastIndexOf("/");
  const dir = slash >= 0 ? spillPath.slice(0, slash) || "/" : ".";
  const base = spillPath.slice(slash + 1);
  const orphans: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.startsWith(`${base}.worker-`)) continue;
      const index = entry.name.slice(base.length + ".worker-".length);
      if (/^[0-9]+$/.test(index) && Number(index) >= workers) {
        orphans.push(slash >= 0 ? `${dir === "/" ? "" : dir}/${entry.name}` : entry.name);
      }
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
  for (const path of orphans.sort()) {
    const text = await Deno.readTextFile(path);
    if (text.trim() !== "") {
      // A torn last line stays torn (the replay skips it) but does not swallow the next one.
      const file = await Deno.open(spillPath, { append: true, create: true });
      try {
        let bytes = new TextEncoder().encode(text.endsWith("\n") ? text : `${text}\n`);
        while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
        // Durable in the primary's file before the isolate's file goes.
        await file.sync();
      } finally {
        file.close();
      }
    }
    await Deno.remove(path);
    log.warn("spill file of an isolate no longer started: replayed by the primary", { path });
  }
  return orphans.length;
}
