/**
 * Rule-7 refusals shared by the dialects that rebuild the request (Bedrock's Converse and
 * Anthropic's Messages API): each dialect module lists the ones that apply to it in its
 * `refusals`. Every one throws the 400 naming the field, before any upstream call.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import { refusedField } from "../errors.ts";
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
