/**
 * Rule 7: on rebuilding routes nothing tool-related is silently dropped. Requests the upstream
 * cannot express are refused with 400 naming the field, before any upstream call:
 * - every Bedrock model: `tool_choice: "none"`, `parallel_tool_calls: false`;
 * - the Anthropic family on Bedrock or Vertex: a forced tool (`required` or a named
 *   function) together with reasoning (thinking allows only `auto`/`none`);
 * - hosted tools (web search, MCP …) on these routes: the gateway runs no tools;
 * - an assistant tool call whose arguments are not a JSON object (these upstreams take an
 *   object), so the translation can never fail during an attempt;
 * - a conversation of system messages only (code `messages`): Bedrock's Converse and
 *   Anthropic's Messages API carry the system prompt apart and need at least one user turn.
 * `response_format` is ignored on these routes (rule 8), not refused. Other dialects pass.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import { refusedField } from "../errors.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { isAnthropicFamily } from "./anthropic_messages/family.ts";
import { toolArgumentsRefusal, toolCallInput } from "./anthropic_messages/group_turns.ts";
import { effectiveReasoning } from "./anthropic_messages/reasoning_budget.ts";

export function checkRebuildingRefusals(request: ChatRequest, route: ResolvedRoute): void {
  switch (route.dialect) {
    case "openai":
    case "riva-tts": // speech only: a chat call fails at the adapter
      return;
    case "bedrock":
      refuseSystemOnly(request, route);
      refuseHostedTools(request, route);
      refuseNonObjectToolArguments(request);
      if (request.toolChoice === "none") {
        throw refusedField(
          "tool_choice",
          `Model '${request.model}' cannot take tool_choice 'none' on this route; send the request without tools instead.`,
        );
      }
      if (request.parallelToolCalls === false) {
        throw refusedField(
          "parallel_tool_calls",
          `Model '${request.model}' cannot turn parallel tool calls off on this route; leave parallel_tool_calls out.`,
        );
      }
      if (isAnthropicFamily(route.route.upstream_model)) {
        refuseForcedToolWithReasoning(request, route);
      }
      return;
    case "vertex-anthropic":
      refuseSystemOnly(request, route);
      refuseHostedTools(request, route);
      refuseNonObjectToolArguments(request);
      refuseForcedToolWithReasoning(request, route);
      return;
    default:
      route.dialect satisfies never;
  }
}

function refuseSystemOnly(request: ChatRequest, route: ResolvedRoute): void {
  if (request.messages.some((m) => m.role !== "system")) return;
  throw refusedField(
    "messages",
    `Model '${request.model}' needs at least one user message on this route (provider '${route.providerId}'): the system prompt travels apart from the conversation, so a conversation of system messages only is empty. Add a message with role 'user'.`,
  );
}

function refuseHostedTools(request: ChatRequest, route: ResolvedRoute): void {
  if ((request.hostedTools ?? []).length === 0) return;
  throw refusedField(
    "tools",
    `Model '${request.model}' accepts only function tools on this route (provider '${route.providerId}'); hosted tools such as web search or MCP are not run by the gateway.`,
  );
}

function refuseNonObjectToolArguments(request: ChatRequest): void {
  for (const message of request.messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? []) {
      if (toolCallInput(call) === undefined) throw toolArgumentsRefusal(call);
    }
  }
}

function refuseForcedToolWithReasoning(request: ChatRequest, route: ResolvedRoute): void {
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
