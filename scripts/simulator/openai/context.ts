import type { SimBlockCache } from "../prompt_cache.ts";

/** What every endpoint handler gets besides the request body. */
export interface RequestContext {
  /** The simulator's prompt cache (chat requests with a `prompt_cache_key`). */
  readonly promptCache?: SimBlockCache;
  /** Sequence number of the request within this simulator (ids derive from it). */
  readonly seq: number;
  /** `x-request-id` of the response. */
  readonly requestId: string;
  /** Aborts when the client leaves or the simulator closes (built lazily: the hot path skips it). */
  signal(): AbortSignal;
}
