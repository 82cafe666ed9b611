/**
 * What a chat request asks of provider prompt caches: its breakpoints (`cache_control` on
 * content parts, messages and tools) in the order the prompt is cached — tools, then system,
 * then the conversation, as Anthropic's Messages API and Bedrock's Converse read it — and its
 * `prompt_cache_key` (Mistral's, passed on where the provider takes it).
 */
import type { CacheBreakpoint, CacheTtl, ChatMessage, ChatRequest } from "./chat.ts";

/** Anthropic's limit, which Bedrock's Converse keeps for its cache points too. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** The request's breakpoints in prompt order (tools, system messages, then the others). */
export function cacheBreakpoints(request: ChatRequest): CacheBreakpoint[] {
  const out: CacheBreakpoint[] = [];
  for (const { cache } of request.toolBreakpoints ?? []) out.push(cache);
  for (const m of request.messages) if (m.role === "system") pushParts(m, out);
  for (const m of request.messages) if (m.role !== "system") pushParts(m, out);
  return out;
}

function pushParts(message: ChatMessage, out: CacheBreakpoint[]): void {
  for (const part of message.parts ?? []) if (part.cache) out.push(part.cache);
}

/** The client's `prompt_cache_key`, when it sent a string. */
export function promptCacheKey(request: ChatRequest): string | undefined {
  const key = request.extra.prompt_cache_key;
  return typeof key === "string" && key !== "" ? key : undefined;
}

/** True when the request marks breakpoints or names a cache key. */
export function asksPromptCache(request: ChatRequest): boolean {
  return promptCacheKey(request) !== undefined || hasBreakpoints(request);
}

export function hasBreakpoints(request: ChatRequest): boolean {
  if ((request.toolBreakpoints?.length ?? 0) > 0) return true;
  return request.messages.some((m) => m.parts?.some((p) => p.cache !== undefined));
}

/** The request without any breakpoint (a route that cannot cache): same text, no parts. */
export function withoutBreakpoints(request: ChatRequest): ChatRequest {
  const out: ChatRequest = { ...request };
  delete out.toolBreakpoints;
  out.messages = request.messages.map((m) => {
    if (m.parts === undefined) return m;
    const { parts: _, ...rest } = m;
    return rest as ChatMessage;
  });
  return out;
}

/** How long a cache written by this request lives at the provider: its longest TTL. */
export function longestTtl(request: ChatRequest): CacheTtl {
  return cacheBreakpoints(request).some((b) => b.ttl === "1h") ? "1h" : "5m";
}

export const TTL_MS: Readonly<Record<CacheTtl, number>> = { "5m": 300_000, "1h": 3_600_000 };

/**
 * Characters of the prompt up to its last breakpoint (tool definitions, system, then the
 * conversation): what a warm cache serves at the cached price. 0 without breakpoints.
 */
export function cacheablePromptChars(request: ChatRequest): number {
  let chars = 0;
  let cacheable = 0;
  const tools = request.tools ?? [];
  const marked = new Set((request.toolBreakpoints ?? []).map((b) => b.tool));
  tools.forEach((tool, i) => {
    chars += JSON.stringify(tool.function).length;
    if (marked.has(i)) cacheable = chars;
  });
  const ordered = [
    ...request.messages.filter((m) => m.role === "system"),
    ...request.messages.filter((m) => m.role !== "system"),
  ];
  for (const m of ordered) {
    if (m.parts === undefined) {
      chars += m.content?.length ?? 0;
      continue;
    }
    for (const part of m.parts) {
      chars += part.text.length;
      if (part.cache) cacheable = chars;
    }
  }
  return cacheable;
}
