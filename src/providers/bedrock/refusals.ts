/**
 * Rule 7 on Bedrock's Converse: what it cannot express is refused before any call.
 * - every model: `tool_choice: "none"`, `parallel_tool_calls: false`;
 * - the Anthropic family: a forced tool together with reasoning;
 * - a conversation of system messages only, tool-call arguments that are not a JSON object;
 * - cache breakpoints beyond what the model caches (`refuseCacheBreakpoints`).
 * Hosted tools are refused by the capability (`hostedTools: false`); `response_format` is
 * ignored (rule 8), not refused.
 */
import type { ChatRequest } from "../../canonical/chat.ts";
import type { ResolvedRoute } from "../../catalog/resolved_route.ts";
import { refusedField } from "../../errors.ts";
import { isAnthropicFamily } from "../anthropic_messages/family.ts";
import {
  refuseCacheBreakpoints,
  refuseForcedToolWithReasoning,
  refuseNonObjectToolArguments,
  refuseSystemOnly,
} from "../refusal_rules.ts";

export function bedrockRefusals(request: ChatRequest, route: ResolvedRoute): void {
  refuseSystemOnly(request, route);
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
  const anthropic = isAnthropicFamily(route.route.upstream_model);
  if (anthropic) refuseForcedToolWithReasoning(request, route);
  // Amazon Nova caches the system prompt and messages, not tool definitions.
  refuseCacheBreakpoints(request, route, { tools: anthropic });
}
