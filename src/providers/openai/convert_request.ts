/**
 * Canonical request → `openai`-dialect body. Parameter filtering happened before (rule 1 and
 * the provider's schema, `conform_request.ts`); the body is then given the provider's names and
 * fields (`shapeBody`), so nothing outside its schema is sent.
 */
import type { ChatMessage, ChatRequest } from "../../canonical/chat.ts";
import type { ResolvedRoute } from "../../catalog/resolved_route.ts";
import { asksStreamUsage, endpointSchema, shapeBody } from "./conform_request.ts";

function convertMessage(m: ChatMessage): Record<string, unknown> {
  switch (m.role) {
    case "system":
    case "user":
      return m.name === undefined
        ? { role: m.role, content: m.content }
        : { role: m.role, content: m.content, name: m.name };
    case "tool":
      return { role: "tool", content: m.content, tool_call_id: m.toolCallId };
    case "assistant": {
      const out: Record<string, unknown> = { role: "assistant", content: m.content };
      if (m.toolCalls) out.tool_calls = m.toolCalls;
      if (m.reasoningDetails) out.reasoning_details = m.reasoningDetails;
      return out;
    }
  }
}

export function convertRequest(
  request: ChatRequest,
  route: ResolvedRoute,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...request.extra,
    model: route.route.upstream_model,
    messages: request.messages.map(convertMessage),
  };
  if (request.stream) {
    body.stream = true;
    if (asksStreamUsage(route)) body.stream_options = { include_usage: true };
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.stop !== undefined) body.stop = request.stop;
  if (request.n !== undefined) body.n = request.n;
  if (request.tools !== undefined) body.tools = request.tools;
  if (request.hostedTools !== undefined) {
    body.tools = [...(request.tools ?? []), ...request.hostedTools];
  }
  if (request.toolChoice !== undefined) body.tool_choice = request.toolChoice;
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.responseFormat !== undefined) body.response_format = request.responseFormat;
  if (request.reasoning !== undefined) {
    // The EU OpenAI-compatible providers (vLLM, Mistral) take `reasoning_effort`.
    const effort = request.reasoning.effort ??
      (request.reasoning.enabled === false ? "none" : route.model.reasoning?.default_effort);
    if (effort !== undefined) body.reasoning_effort = effort;
  }
  if (request.user !== undefined) body.user = request.user;
  return shapeBody(body, endpointSchema(route, "chat"));
}
