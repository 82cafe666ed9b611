/**
 * Rule 1: parameters the route's provider does not support are removed from the upstream
 * request, never rejected; so is a parameter its model's family refuses together with another
 * (`exclusive_parameters`). A parameter is supported when the model lists it in
 * `supported_parameters` and the provider does not list it in `unsupported_parameters`.
 * Returns the names dropped, for the `x-sovra-dropped-params` header.
 *
 * What a route supports depends on the catalog alone: it is worked out once per route object
 * (a reloaded catalog has new ones) and kept beside it, not per request.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { dialectOf } from "../providers/registry.ts";
import { hasBreakpoints, withoutBreakpoints } from "../canonical/prompt_cache.ts";

type Filterable =
  | "temperature"
  | "topP"
  | "maxTokens"
  | "stop"
  | "toolChoice"
  | "parallelToolCalls"
  | "responseFormat"
  | "reasoning"
  | "user";

const PARAMETER_NAMES: ReadonlyArray<readonly [Filterable, string]> = [
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["maxTokens", "max_tokens"],
  ["stop", "stop"],
  ["toolChoice", "tool_choice"],
  ["parallelToolCalls", "parallel_tool_calls"],
  ["responseFormat", "response_format"],
  ["reasoning", "reasoning"],
  ["user", "user"],
];

/** What rule 1 needs to know of one route. */
interface RouteParameters {
  /** The fields of `PARAMETER_NAMES` this route does not support, in that order. */
  unsupported: ReadonlyArray<readonly [Filterable, string]>;
  /** `n` is sent: the dialect has the capability and the route supports the parameter. */
  n: boolean;
  /** Prompt-cache breakpoints reach the provider (`cache_control` is supported). */
  cacheControl: boolean;
}

const BY_ROUTE = new WeakMap<ResolvedRoute, RouteParameters>();

function parametersOf(route: ResolvedRoute): RouteParameters {
  let parameters = BY_ROUTE.get(route);
  if (parameters === undefined) {
    parameters = {
      unsupported: PARAMETER_NAMES.filter(([, name]) => !isSupported(route, name)),
      n: dialectOf(route.dialect)?.capabilities.n === true && isSupported(route, "n"),
      cacheControl: isSupported(route, "cache_control"),
    };
    BY_ROUTE.set(route, parameters);
  }
  return parameters;
}

/** `user` is the client's end-user id: always kept for metadata, forwarded only when supported. */
export function isSupported(route: ResolvedRoute, name: string): boolean {
  return route.model.supported_parameters.includes(name) &&
    !route.provider.unsupported_parameters.includes(name);
}

export function filterParameters(
  request: ChatRequest,
  route: ResolvedRoute,
): { request: ChatRequest; dropped: string[] } {
  const parameters = parametersOf(route);
  const dropped: string[] = [];
  const out: ChatRequest = { ...request, extra: {} };
  for (const [field, name] of parameters.unsupported) {
    if (request[field] !== undefined) {
      delete out[field];
      if (name !== "user") dropped.push(name);
    }
  }
  // A dialect without the `n` capability produces one choice: `n` is not sent there (named
  // when > 1). Where the dialect has it, it is a parameter like the others.
  if (request.n !== undefined && !parameters.n) {
    delete out.n;
    if (request.n > 1) dropped.push("n");
  }
  const extra = request.extra;
  // Own keys only, as Object.entries gives them (a `__proto__` field may have set a prototype).
  for (const name in extra) {
    if (!Object.hasOwn(extra, name)) continue;
    const value = extra[name];
    if (isSupported(route, name)) out.extra[name] = value;
    else if (value !== undefined && value !== null) dropped.push(name);
  }
  for (const group of route.model.exclusive_parameters ?? []) dropExclusive(group, out, dropped);
  // Breakpoints on a route that caches nothing: the same text goes, without them.
  if (!parameters.cacheControl && hasBreakpoints(request)) {
    dropped.push("cache_control");
    return { request: withoutBreakpoints(out), dropped };
  }
  return { request: out, dropped };
}

const FIELD_OF_NAME = new Map<string, Filterable>(PARAMETER_NAMES.map(([f, n]) => [n, f]));

/**
 * A family's exclusive group (Claude 4.5: temperature, top_p): the first parameter of the group
 * the request carries is kept, the later ones are removed and named.
 */
function dropExclusive(group: readonly string[], out: ChatRequest, dropped: string[]): void {
  let kept = false;
  for (const name of group) {
    const field = FIELD_OF_NAME.get(name);
    const present = field !== undefined
      ? out[field] !== undefined
      : out.extra[name] !== undefined && out.extra[name] !== null;
    if (!present) continue;
    if (!kept) {
      kept = true;
      continue;
    }
    if (field !== undefined) delete out[field];
    else delete out.extra[name];
    dropped.push(name);
  }
}
