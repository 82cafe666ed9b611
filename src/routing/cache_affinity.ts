/**
 * Cache affinity: a session that asked for prompt caching stays on the route (model and
 * provider) whose cache holds its prefix, while that cache lives. A provider's cache is its
 * own: the same prompt on the model's standby provider is a cache write again, dearer than the
 * read it would have been. So after a success the route that served is remembered for the
 * session for the cache's TTL (refreshed by every use, as the providers refresh theirs); the
 * routing plan tries that route first among its model's routes, and the router keeps the
 * session on that model (its cost term prices the warm model's cached prefix at the cached
 * price).
 *
 * The session is the request's `prompt_cache_key`, else its end-user id (`user`), else the API
 * key: one of them names who sends the same prefix again. Ids only, per instance, in memory
 * with a bound; nothing of the prompt is kept. A request that asks for no caching has none.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import { asksPromptCache, longestTtl, promptCacheKey, TTL_MS } from "../canonical/prompt_cache.ts";

const MAX_SESSIONS = 50_000;
/** Longer session names (a client's own key or end-user id) are not kept: no affinity. */
const MAX_SESSION_CHARS = 256;

export interface CacheHolder {
  /** The catalog model id that served. */
  model: string;
  /** The provider id of the route that served. */
  provider: string;
}

/** The session a caching request belongs to (undefined: it asks for no caching). */
export function cacheSession(request: ChatRequest, keyId: string): string | undefined {
  if (!asksPromptCache(request)) return undefined;
  const key = promptCacheKey(request);
  const name = key !== undefined
    ? `k\u001f${key}`
    : request.user !== undefined
    ? `u\u001f${request.user}`
    : `a\u001f${keyId}`;
  return name.length > MAX_SESSION_CHARS ? undefined : name;
}

export class CacheAffinity {
  readonly #holders = new Map<string, CacheHolder & { expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Where this session's prompt cache lives now, if anywhere. */
  holder(org: string, session: string): CacheHolder | undefined {
    const id = `${org}\u001f${session}`;
    const held = this.#holders.get(id);
    if (held === undefined) return undefined;
    if (held.expires <= this.now()) {
      this.#holders.delete(id);
      return undefined;
    }
    return { model: held.model, provider: held.provider };
  }

  /** A caching request succeeded on this route: its cache lives there for the request's TTL. */
  served(org: string, use: CacheUse, holder: CacheHolder): void {
    const id = `${org}\u001f${use.session}`;
    if (!this.#holders.has(id) && this.#holders.size >= MAX_SESSIONS) {
      // Drop the oldest tenth (Map keeps insertion order; a refresh moves an entry last).
      let drop = Math.ceil(MAX_SESSIONS / 10);
      for (const key of this.#holders.keys()) {
        this.#holders.delete(key);
        if (--drop === 0) break;
      }
    }
    this.#holders.delete(id);
    this.#holders.set(id, { ...holder, expires: this.now() + use.ttlMs });
  }
}

/** A caching request's session and how long the cache it writes lives (ids and a number). */
export interface CacheUse {
  session: string;
  ttlMs: number;
}

/** What a success of this request tells the affinity (undefined: it asks for no caching). */
export function cacheUseOf(request: ChatRequest, keyId: string): CacheUse | undefined {
  const session = cacheSession(request, keyId);
  return session === undefined ? undefined : { session, ttlMs: TTL_MS[longestTtl(request)] };
}
