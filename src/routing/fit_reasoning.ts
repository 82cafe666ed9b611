/**
 * Reasoning effort per model and route: the model's `supported_efforts` (or the route's own,
 * where its provider honours fewer) decide what is sent. An effort the route lacks becomes the
 * nearest level it has (ties upward) — reported as adjusted — or, with none to map to, is
 * dropped and reported. Effort `none` on a route whose provider has its own off-switch
 * (OVHcloud's Qwen3: `/no_think` in the prompt) is sent as that switch.
 */
import type { ChatMessage, ChatRequest, ReasoningEffort } from "../canonical/chat.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";

/** Effort levels in increasing order (`none` is off, not a level). */
const LEVELS: readonly ReasoningEffort[] = ["minimal", "low", "medium", "high", "xhigh"];

export interface FittedReasoning {
  request: ChatRequest;
  /** Dropped names, for `x-sovra-dropped-params`. */
  dropped: string[];
  /** What was changed, `reasoning.effort=medium->high`, for `x-sovra-adjusted-params`. */
  adjusted: string[];
}

/** The efforts this route honours for its model. */
export function routeEfforts(route: ResolvedRoute): readonly ReasoningEffort[] {
  return route.route.reasoning?.supported_efforts ?? route.model.reasoning?.supported_efforts ??
    [];
}

export function fitReasoning(request: ChatRequest, route: ResolvedRoute): FittedReasoning {
  const reasoning = request.reasoning;
  const unchanged = { request, dropped: [], adjusted: [] };
  // A model without reasoning: rule 1 has removed `reasoning` where it is not supported.
  if (reasoning === undefined || route.model.reasoning === undefined) return unchanged;
  const effort = reasoning.effort ?? (reasoning.enabled === false ? "none" : undefined);
  if (effort === undefined) return unchanged;
  const efforts = routeEfforts(route);
  const offSwitch = route.route.reasoning?.off_switch;
  if (effort === "none") {
    if (offSwitch !== undefined) {
      const { effort: _e, enabled: _d, ...rest } = reasoning;
      const out: ChatRequest = { ...request, messages: withSwitch(request.messages, offSwitch) };
      if (Object.keys(rest).length > 0) out.reasoning = rest;
      else delete out.reasoning;
      return { request: out, dropped: [], adjusted: [`reasoning.effort=none->${offSwitch}`] };
    }
    if (efforts.includes("none")) return unchanged;
    return { request: withoutEffort(request), dropped: ["reasoning.effort"], adjusted: [] };
  }
  if (efforts.includes(effort)) return unchanged;
  const nearest = nearestLevel(effort, efforts);
  if (nearest === undefined) {
    return { request: withoutEffort(request), dropped: ["reasoning.effort"], adjusted: [] };
  }
  return {
    request: { ...request, reasoning: { ...reasoning, effort: nearest } },
    dropped: [],
    adjusted: [`reasoning.effort=${effort}->${nearest}`],
  };
}

/** The supported level closest to `wanted` (ties upward), or undefined when there is none. */
export function nearestLevel(
  wanted: ReasoningEffort,
  efforts: readonly ReasoningEffort[],
): ReasoningEffort | undefined {
  const at = LEVELS.indexOf(wanted);
  let best: ReasoningEffort | undefined;
  let bestDistance = Infinity;
  for (const level of LEVELS) {
    if (!efforts.includes(level)) continue;
    const distance = Math.abs(LEVELS.indexOf(level) - at);
    // Later levels win ties: walking upward, `<=` keeps the higher one.
    if (distance <= bestDistance) {
      best = level;
      bestDistance = distance;
    }
  }
  return best;
}

function withoutEffort(request: ChatRequest): ChatRequest {
  const { effort: _e, enabled: _d, ...rest } = request.reasoning ?? {};
  const out: ChatRequest = { ...request };
  if (Object.keys(rest).length > 0) out.reasoning = rest;
  else delete out.reasoning;
  return out;
}

/** The last user message with the provider's switch appended (a copy; the client's is kept). */
function withSwitch(messages: ChatMessage[], offSwitch: string): ChatMessage[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "user") continue;
    const out = [...messages];
    out[i] = { ...message, content: `${message.content}\n\n${offSwitch}` };
    return out;
  }
  return messages;
}
