/**
 * Decides before any upstream call whether a route can express the request (rule 7). Only
 * rebuilding routes refuse anything; `openai`-dialect routes pass everything through.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { ResolvedRoute } from "../providers/adapter.ts";

type RouteCheck = (request: ChatRequest, route: ResolvedRoute) => void;

const rebuildingChecks: RouteCheck[] = [];

/** Registers the rebuilding adapters' refusal rules (composition root). */
export function registerRebuildingCheck(check: RouteCheck): void {
  rebuildingChecks.push(check);
}

export function checkRouteCanExpress(request: ChatRequest, route: ResolvedRoute): void {
  if (route.dialect === "openai") return;
  for (const check of rebuildingChecks) check(request, route);
}
