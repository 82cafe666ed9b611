/**
 * Decides before any upstream call whether a route can express the request (rule 7). Only
 * rebuilding routes refuse anything; `openai`-dialect routes pass everything through.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { ResolvedRoute } from "../providers/adapter.ts";
import { checkRebuildingRefusals } from "../providers/rebuilding_refusals.ts";

export function checkRouteCanExpress(request: ChatRequest, route: ResolvedRoute): void {
  if (route.dialect === "openai") return;
  checkRebuildingRefusals(request, route);
}
