/** Canonical result → chat-completion object. `model` is always the catalog id. */
import type { ChatResult } from "../../canonical/chat.ts";
import { isUsageComplete, type Usage } from "../../canonical/usage.ts";

export interface ChatEncodeContext {
  id: string;
  created: number;
  model: string;
  excludeReasoning: boolean;
}

export function encodeUsage(usage: Usage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    prompt_tokens: usage.promptTokens ?? 0,
    completion_tokens: usage.completionTokens ?? 0,
    total_tokens: usage.totalTokens ??
      (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0),
  };
  if (usage.cachedPromptTokens !== undefined) {
    out.prompt_tokens_details = { cached_tokens: usage.cachedPromptTokens };
  }
  if (usage.reasoningTokens !== undefined) {
    out.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  }
  return out;
}

export function encodeChatCompletion(
  result: ChatResult,
  ctx: ChatEncodeContext,
): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: result.content };
  if (result.toolCalls && result.toolCalls.length > 0) message.tool_calls = result.toolCalls;
  if (!ctx.excludeReasoning) {
    if (result.reasoning) message.reasoning = result.reasoning;
    if (result.reasoningDetails && result.reasoningDetails.length > 0) {
      message.reasoning_details = result.reasoningDetails;
    }
  }
  const body: Record<string, unknown> = {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, finish_reason: result.finishReason, logprobs: null }],
  };
  if (isUsageComplete(result.usage)) body.usage = encodeUsage(result.usage);
  return body;
}
