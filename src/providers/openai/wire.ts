/** Tolerant readers of `openai`-dialect answers (zod, optional fields nullish, loose). */
import { z } from "zod";

export const WireUsage = z.looseObject({
  prompt_tokens: z.number().int().nonnegative().nullish(),
  completion_tokens: z.number().int().nonnegative().nullish(),
  total_tokens: z.number().int().nonnegative().nullish(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().int().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().int().nullish() })
    .nullish(),
  num_cached_tokens: z.number().int().nullish(),
});
export type WireUsage = z.infer<typeof WireUsage>;

const WireToolCall = z.looseObject({
  id: z.string(),
  type: z.string().nullish(),
  function: z.looseObject({
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
  }),
});

/** Mistral's reasoning content: `[{type:"thinking", thinking:[{type:"text",text}]}, {type:"text",text}]`. */
const WireContentPart = z.looseObject({
  type: z.string(),
  text: z.string().nullish(),
  thinking: z.array(z.looseObject({ type: z.string(), text: z.string().nullish() })).nullish(),
});

export const WireChatCompletion = z.looseObject({
  id: z.string().nullish(),
  choices: z.array(z.looseObject({
    index: z.number().int().nullish(),
    finish_reason: z.string().nullish(),
    message: z.looseObject({
      content: z.union([z.string(), z.array(WireContentPart)]).nullish(),
      reasoning: z.string().nullish(),
      reasoning_content: z.string().nullish(),
      reasoning_details: z.array(z.looseObject({ type: z.string() })).nullish(),
      tool_calls: z.array(WireToolCall).nullish(),
    }),
  })).min(1),
  usage: WireUsage.nullish(),
});
export type WireChatCompletion = z.infer<typeof WireChatCompletion>;
