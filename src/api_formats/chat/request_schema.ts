/**
 * `POST /v1/chat/completions` request body. Validates and feeds `/openapi.json`.
 * Unknown extra fields are not an error (loose objects).
 */
import { z } from "zod";
import { EndUserId } from "../../canonical/end_user.ts";
import { ReasoningDetailSchema } from "../../canonical/reasoning_detail_schema.ts";
import { CacheControlSchema } from "../../canonical/cache_control_schema.ts";

const TextPart = z.looseObject({
  type: z.literal("text"),
  text: z.string(),
  cache_control: CacheControlSchema.nullish(),
});
const OtherPart = z.looseObject({ type: z.string() });
export const MessageContent = z.union([
  z.string(),
  z.array(z.union([TextPart, OtherPart])),
  z.null(),
]);

export { CacheControlSchema, ReasoningDetailSchema };

export const ToolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal("function").default("function"),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});

export const ChatMessageSchema = z.discriminatedUnion("role", [
  z.looseObject({
    role: z.literal("system"),
    content: MessageContent,
    name: z.string().optional(),
    cache_control: CacheControlSchema.nullish(),
  }),
  z.looseObject({
    role: z.literal("developer"),
    content: MessageContent,
    name: z.string().optional(),
    cache_control: CacheControlSchema.nullish(),
  }),
  z.looseObject({
    role: z.literal("user"),
    content: MessageContent,
    name: z.string().optional(),
    cache_control: CacheControlSchema.nullish(),
  }),
  z.looseObject({
    role: z.literal("assistant"),
    content: MessageContent.optional(),
    name: z.string().optional(),
    tool_calls: z.array(ToolCallSchema).nullish(),
    reasoning: z.string().nullish(),
    reasoning_details: z.array(ReasoningDetailSchema).nullish(),
    cache_control: CacheControlSchema.nullish(),
  }),
  z.looseObject({
    role: z.literal("tool"),
    content: MessageContent,
    tool_call_id: z.string().min(1),
    name: z.string().optional(),
    cache_control: CacheControlSchema.nullish(),
  }),
]);

export const FunctionToolSchema = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
  cache_control: CacheControlSchema.nullish(),
});

/** Any other tool type (web search, MCP …): hosted tools. */
export const HostedToolSchema = z.looseObject({ type: z.string() });

export const ToolChoiceSchema = z.union([
  z.enum(["none", "auto", "required"]),
  z.looseObject({
    type: z.literal("function"),
    function: z.looseObject({ name: z.string().min(1) }),
  }),
]);

export const ReasoningSchema = z.looseObject({
  effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).optional(),
  max_tokens: z.number().int().positive().optional(),
  exclude: z.boolean().optional(),
  enabled: z.boolean().optional(),
});

export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(16)]).nullish(),
  n: z.number().int().min(1).max(128).nullish(),
  tools: z.array(z.union([FunctionToolSchema, HostedToolSchema])).nullish(),
  tool_choice: ToolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: z.looseObject({ type: z.string() }).nullish(),
  reasoning: ReasoningSchema.nullish(),
  reasoning_effort: ReasoningSchema.shape.effort.unwrap().nullish().describe(
    "OpenAI's name for `reasoning.effort` (what the official SDKs send); `reasoning.effort` wins when both are given.",
  ),
  user: EndUserId.nullish(),
  prompt_cache_key: z.string().nullish().describe(
    "Groups requests that share a prompt prefix (Mistral's prompt cache); forwarded where the model lists it in supported_parameters, else removed and named in x-sovra-dropped-params.",
  ),
});
export type ChatCompletionRequestBody = z.infer<typeof ChatCompletionRequestSchema>;
