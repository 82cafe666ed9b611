/** The non-streamed `chat.completion` object. */

import { type ChatAnswer, REASONING_FORMAT, type UsageCounts } from "./chat_answer.ts";

export interface CompletionIdentity {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

/** OpenAI's usage object; `completion_tokens` includes reasoning tokens, as OpenAI counts them. */
export function usageObject(usage: UsageCounts): Record<string, unknown> {
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cached ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function chatCompletion(
  identity: CompletionIdentity,
  answer: ChatAnswer,
  withUsage: boolean,
): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: answer.content?.text ?? null,
    refusal: null,
    annotations: [],
  };
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  const reasoning = answer.reasoning;
  if (reasoning !== undefined && reasoning.returned) {
    message.reasoning = reasoning.text;
    message.reasoning_details = [{
      type: "reasoning.text",
      text: reasoning.text,
      signature: reasoning.signature,
      format: REASONING_FORMAT,
      index: 0,
    }];
  }
  const completion: Record<string, unknown> = {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    service_tier: "default",
  };
  if (withUsage) completion.usage = usageObject(answer.usage);
  return completion;
}
