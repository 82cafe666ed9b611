/** Canonical result → chat-completion object. `model` is always the catalog id. */
import type { ChatResult, ChoiceResult } from "../../canonical/chat.ts";
import { isUsageComplete, type Usage } from "../../canonical/usage.ts";

export interface ChatEncodeContext {
  id: string;
  created: number;
  model: string;
  excludeReasoning: boolean;
}

/**
 * The usage object: OpenAI's inclusive counts (`prompt_tokens` counts the cached ones),
 * `prompt_tokens_details.cached_tokens` on every route (0 when nothing came from a cache, as
 * OpenAI sends it) and, where the provider wrote to its cache, `cache_write_tokens` beside it
 * (OpenRouter's name; those tokens are billed at the model's cache-write price).
 */
export function encodeUsage(usage: Usage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    prompt_tokens: usage.promptTokens ?? 0,
    completion_tokens: usage.completionTokens ?? 0,
    total_tokens: usage.totalTokens ??
      (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0),
  };
  const details: Record<string, number> = { cached_tokens: usage.cachedPromptTokens ?? 0 };
  if (usage.cacheWritePromptTokens !== undefined) {
    details.cache_write_tokens = usage.cacheWritePromptTokens;
  }
  out.prompt_tokens_details = details;
  if (usage.reasoningTokens !== undefined) {
    out.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  }
  return out;
}

function encodeChoice(choice: ChoiceResult, index: number, excludeReasoning: boolean) {
  const message: Record<string, unknown> = { role: "assistant", content: choice.content };
  if (choice.toolCalls && choice.toolCalls.length > 0) message.tool_calls = choice.toolCalls;
  if (!excludeReasoning) {
    if (choice.reasoning) message.reasoning = choice.reasoning;
    if (choice.reasoningDetails && choice.reasoningDetails.length > 0) {
      message.reasoning_details = choice.reasoningDetails;
    }
  }
  return { index, message, finish_reason: choice.finishReason, logprobs: null };
}

export function encodeChatCompletion(
  result: ChatResult,
  ctx: ChatEncodeContext,
): Record<string, unknown> {
  const choices = [result, ...(result.moreChoices ?? [])].map((choice, index) =>
    encodeChoice(choice, index, ctx.excludeReasoning)
  );
  const body: Record<string, unknown> = {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices,
  };
  if (isUsageComplete(result.usage)) body.usage = encodeUsage(result.usage);
  return body;
}
