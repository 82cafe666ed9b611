/**
 * Rule 7: on rebuilding routes nothing tool-related is silently dropped. A request the route's
 * dialect cannot express is refused with 400 naming the field, before any upstream call. Each
 * dialect declares what it refuses (`refusals` in its `dialect.ts`, see REBUILDING.md); hosted
 * tools are refused on every dialect whose capabilities lack them. `response_format` is
 * ignored on these routes (rule 8), not refused. Dialects that pass the request on refuse
 * nothing.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { dialectOf } from "./registry.ts";
import { refuseHostedTools } from "./refusal_rules.ts";

export function checkRebuildingRefusals(request: ChatRequest, route: ResolvedRoute): void {
  const dialect = dialectOf(route.dialect);
  if (dialect === undefined) return;
  if (!dialect.capabilities.hostedTools) refuseHostedTools(request, route);
  dialect.refusals?.(request, route);
}
