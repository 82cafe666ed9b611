/**
 * Rule 7 on Anthropic's Messages API (Vertex): a forced tool together with reasoning, a
 * conversation of system messages only and tool-call arguments that are not a JSON object are
 * refused before any call. Hosted tools are refused by the capability (`hostedTools: false`).
 */
import type { ChatRequest } from "../../canonical/chat.ts";
import type { ResolvedRoute } from "../../catalog/resolved_route.ts";
import {
  refuseForcedToolWithReasoning,
  refuseNonObjectToolArguments,
  refuseSystemOnly,
} from "../refusal_rules.ts";

export function vertexAnthropicRefusals(request: ChatRequest, route: ResolvedRoute): void {
  refuseSystemOnly(request, route);
  refuseNonObjectToolArguments(request);
  refuseForcedToolWithReasoning(request, route);
}
