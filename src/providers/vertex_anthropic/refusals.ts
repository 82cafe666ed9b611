/**
 * Rule 7 on Anthropic's Messages API (Vertex): a forced tool together with reasoning, a
 * conversation of system messages only, tool-call arguments that are not a JSON object and cache
 * breakpoints beyond what the model caches are refused before any call. Hosted tools are refused by the capability (`hostedTools: false`).
 */
import type { ChatRequest } from "../../canonical/chat.ts";
import type { ResolvedRoute } from "../../catalog/resolved_route.ts";
import {
  refuseCacheBreakpoints,
  refuseForcedToolWithReasoning,
  refuseNonObjectToolArguments,
  refuseSystemOnly,
} from "../refusal_rules.ts";

export function vertexAnthropicRefusals(request: ChatRequest, route: ResolvedRoute): void {
  refuseSystemOnly(request, route);
  refuseNonObjectToolArguments(request);
  refuseForcedToolWithReasoning(request, route);
  refuseCacheBreakpoints(request, route, { tools: true });
}
