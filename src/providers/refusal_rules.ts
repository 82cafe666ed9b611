/**
 * Rule-7 refusals shared by the dialects that rebuild the request (Bedrock's Converse and
 * Anthropic's Messages API): each dialect module lists the ones that apply to it in its
 * `refusals`. Every one throws the 400 naming the field, before any upstream call.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import { GatewayError, refusedField } from "../errors.ts";
import { cacheBreakpoints, MAX_CACHE_BREAKPOINTS } from "../canonical/prompt_cache.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { toolArgumentsRefusal, toolCallInput } from "./anthropic_messages/group_turns.ts";
import { effectiveReasoning } from "./anthropic_messages/reasoning_budget.ts";

/**
 * A conversation of system messages only (code `messages`): these upstreams carry the system
 * prompt apart and need at least one user turn.
 */
export function refuseSystemOnly(request: ChatRequest, route: ResolvedRoute): void {
  if (request.messages.some((m) => m.role !== "system")) return;
  throw refusedField(
    "messages",
    `Model '${request.model}' needs at least one user message on this route (provider '${route.providerId}'): the system prompt travels apart from the conversation, so a conversation of system messages only is empty. Add a message with role 'user'.`,
  );
}

/** Hosted tools (web search, MCP …): the gateway runs no tools. */
export function refuseHostedTools(request: ChatRequest, route: ResolvedRoute): void {
  if ((request.hostedTools ?? []).length === 0) return;
  throw refusedField(
    "tools",
    `Model '${request.model}' accepts only function tools on this route (provider '${route.providerId}'); hosted tools such as web search or MCP are not run by the gateway.`,
  );
}

/**
 * An assistant tool call whose arguments are not a JSON object (these upstreams take an
 * object), so the translation can never fail during an attempt.
 */
export function refuseNonObjectToolArguments(request: ChatRequest): void {
  for (const message of request.messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? []) {
      if (toolCallInput(call) === undefined) throw toolArgumentsRefusal(call);
    }
  }
}

/** A forced tool (`required` or a named function) while reasoning: thinking allows only `auto`/`none`. */
export function refuseForcedToolWithReasoning(request: ChatRequest, route: ResolvedRoute): void {
  const choice = request.toolChoice;
  const forced = choice === "required" ||
    (typeof choice === "object" && choice.type === "function");
  if (!forced) return;
  if (!reasoningEnabled(request, route)) return;
  throw refusedField(
    "tool_choice",
    `Model '${request.model}' cannot force a tool while reasoning on this route; use tool_choice 'auto' or turn reasoning off.`,
  );
}

/** Reasoning counts as on when the client asked for it (not effort 'none') or the model always reasons. */
function reasoningEnabled(request: ChatRequest, route: ResolvedRoute): boolean {
  const asked = request.reasoning !== undefined && request.reasoning.effort !== "none" &&
    request.reasoning.enabled !== false;
  return asked || (route.model.reasoning?.mandatory ?? false) ||
    effectiveReasoning(request, route) !== undefined;
}

/** What a dialect's cache points can carry on a route. */
export interface CacheRules {
  /** Breakpoints on tool definitions are expressible (Claude; not Amazon Nova). */
  tools: boolean;
}

/**
 * Prompt-cache breakpoints the route cannot express (code `cache_control`, `param` where the
 * client put the one refused): more than the provider's limit of 4, the 1-hour TTL on a model
 * whose catalog entry prices no 1-hour cache write, a 1-hour breakpoint after a 5-minute one
 * (Anthropic caches the longer TTLs first), breakpoints on tools where the model caches none.
 * A route whose model does not list `cache_control` refuses nothing: rule 1 removes them there.
 */
export function refuseCacheBreakpoints(
  request: ChatRequest,
  route: ResolvedRoute,
  rules: CacheRules,
): void {
  if (
    !route.model.supported_parameters.includes("cache_control") ||
    route.provider.unsupported_parameters.includes("cache_control")
  ) return;
  const points = cacheBreakpoints(request);
  if (points.length === 0) return;
  const refuse = (at: string, message: string) => {
    throw new GatewayError(400, "cache_control", message, { param: `${at}.cache_control` });
  };
  if (points.length > MAX_CACHE_BREAKPOINTS) {
    refuse(
      points[MAX_CACHE_BREAKPOINTS]!.at,
      `Model '${request.model}' takes at most ${MAX_CACHE_BREAKPOINTS} cache_control breakpoints on this route (provider '${route.providerId}'); the request has ${points.length}. Keep the ${MAX_CACHE_BREAKPOINTS} that end the longest shared prefixes.`,
    );
  }
  if (!rules.tools) {
    const onTool = request.toolBreakpoints?.[0];
    if (onTool) {
      refuse(
        onTool.cache.at,
        `Model '${request.model}' caches no tool definitions on this route (provider '${route.providerId}'); put the cache_control breakpoint on the system prompt or a message.`,
      );
    }
  }
  const hourly = points.find((p) => p.ttl === "1h");
  if (hourly && !route.model.pricing.cache_write_1h_micro_eur_per_million) {
    refuse(
      hourly.at,
      `Model '${request.model}' offers no 1-hour prompt cache; omit 'ttl' or send "5m".`,
    );
  }
  const firstShort = points.findIndex((p) => p.ttl === "5m");
  const lateHour = firstShort < 0
    ? undefined
    : points.slice(firstShort).find((p) => p.ttl === "1h");
  if (lateHour) {
    refuse(
      lateHour.at,
      `A cache_control breakpoint with ttl "1h" must come before every "5m" one (tools, then system, then messages); move it or shorten its ttl.`,
    );
  }
}
