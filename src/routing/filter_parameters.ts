/**
 * Rule 1: parameters the route's provider does not support are removed from the upstream
 * request, never rejected. A parameter is supported when the model lists it in
 * `supported_parameters` and the provider does not list it in `unsupported_parameters`.
 * Returns the names dropped, for the `x-sovra-dropped-params` header.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { dialectOf } from "../providers/registry.ts";

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

const PARAMETER_NAMES: ReadonlyArray<[Filterable, string]> = [
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

/** `user` is the client's end-user id: always kept for metadata, forwarded only when supported. */
export function isSupported(route: ResolvedRoute, name: string): boolean {
  return route.model.supported_parameters.includes(name) &&
    !route.provider.unsupported_parameters.includes(name);
}

export function filterParameters(
  request: ChatRequest,
  route: ResolvedRoute,
): { request: ChatRequest; dropped: string[] } {
  const dropped: string[] = [];
  const out: ChatRequest = { ...request, extra: {} };
  for (const [field, name] of PARAMETER_NAMES) {
    if (request[field] !== undefined && !isSupported(route, name)) {
      delete out[field];
      if (name !== "user") dropped.push(name);
    }
  }
  // A dialect without the `n` capability produces one choice: `n` is not sent there (named
  // when > 1). Where the dialect has it, it is a parameter like the others.
  if (
    request.n !== undefined &&
    (!dialectOf(route.dialect)?.capabilities.n || !isSupported(route, "n"))
  ) {
    delete out.n;
    if (request.n > 1) dropped.push("n");
  }
  for (const [name, value] of Object.entries(request.extra)) {
    if (isSupported(route, name)) out.extra[name] = value;
    else if (value !== undefined && value !== null) dropped.push(name);
  }
  return { request: out, dropped };
}
