/**
 * A real Deno KV store in memory for a test scope: `await using store = await openTestStore()`
 * closes it (after its queued writes) at the end of the scope.
 */
import { createKvStore, type KvStore } from "../../src/state/kv/kv_store.ts";

export async function openTestStore(): Promise<KvStore & AsyncDisposable> {
  const store = createKvStore(await Deno.openKv(":memory:"));
  return Object.assign(store, {
    [Symbol.asyncDispose]: () => store.close(),
  });
}
