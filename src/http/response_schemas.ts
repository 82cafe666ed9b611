/**
 * The 200 bodies of the API as zod schemas, for `/openapi.json` (the same `z.toJSONSchema` path
 * as the request schemas). Objects are open (`looseObject`): the encoders may add fields, and a
 * test checks real answers against these schemas so the document cannot drift from them.
 */
import { z } from "zod";
import { ModelKind } from "../catalog/schema.ts";

const ReasoningDetail = z.looseObject({
  type: z.enum(["reasoning.text", "reasoning.summary", "reasoning.encrypted"]),
});

const ToolCall = z.looseObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const ChatUsage = z.looseObject({
  prompt_tokens: z.number().int().describe("Every prompt token, cached ones included."),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.looseObject({
    cached_tokens: z.number().int().describe(
      "Of prompt_tokens: read from the provider's prompt cache, billed at the model's cached_prompt price (0 when none).",
    ),
    cache_write_tokens: z.number().int().optional().describe(
      "Of prompt_tokens: written to the provider's cache, billed at the cache_write price; present where the provider reports writes (Claude).",
    ),
  }),
});

export const ChatCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string().describe("The catalog id that was asked for."),
  choices: z.array(z.looseObject({
    index: z.number().int(),
    message: z.looseObject({
      role: z.literal("assistant"),
      content: z.string().nullable(),
      tool_calls: z.array(ToolCall).optional(),
      reasoning: z.string().optional(),
      reasoning_details: z.array(ReasoningDetail).optional(),
    }),
    finish_reason: z.string(),
  })),
  usage: ChatUsage.optional().describe("Present when the provider reported both counts."),
});

const ItemStatus = z.enum(["in_progress", "completed", "incomplete"]);

const OutputItem = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("message"),
    id: z.string(),
    role: z.literal("assistant"),
    status: ItemStatus,
    content: z.array(z.looseObject({ type: z.literal("output_text"), text: z.string() })),
  }),
  z.looseObject({
    type: z.literal("function_call"),
    id: z.string(),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string(),
    status: ItemStatus,
  }),
  z.looseObject({
    type: z.literal("reasoning"),
    id: z.string(),
    summary: z.array(z.looseObject({ type: z.literal("summary_text"), text: z.string() })),
    content: z.array(z.looseObject({ type: z.literal("reasoning_text"), text: z.string() }))
      .optional(),
    encrypted_content: z.string().describe("Replay it unchanged to continue a tool loop."),
    reasoning_details: z.array(ReasoningDetail),
    status: ItemStatus,
  }),
]);

export const ResponseObjectSchema = z.looseObject({
  id: z.string(),
  object: z.literal("response"),
  created_at: z.number().int(),
  status: z.enum(["in_progress", "completed", "incomplete", "failed"]),
  model: z.string(),
  output: z.array(OutputItem),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  store: z.literal(false),
  usage: z.looseObject({
    input_tokens: z.number().int().describe("Every input token, cached ones included."),
    input_tokens_details: z.looseObject({
      cached_tokens: z.number().int().describe(
        "Of input_tokens: read from the provider's prompt cache (cached price).",
      ),
      cache_write_tokens: z.number().int().describe(
        "Of input_tokens: written to the provider's prompt cache (cache-write price).",
      ),
    }),
    output_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }).optional(),
});

export const EmbeddingsListSchema = z.looseObject({
  object: z.literal("list"),
  data: z.array(z.looseObject({
    object: z.literal("embedding"),
    index: z.number().int(),
    embedding: z.union([z.array(z.number()), z.string()])
      .describe("Floats, or base64 with encoding_format 'base64'."),
  })),
  model: z.string(),
});

export const TranscriptionSchema = z.looseObject({ text: z.string() });

export const ModelEntrySchema = z.looseObject({
  id: z.string().describe("'<provider>/<model>'"),
  object: z.literal("model"),
  created: z.number().int(),
  owned_by: z.string(),
  kind: ModelKind,
  sovereignty: z.enum(["strict", "pragmatic"]),
  pricing: z.record(z.string(), z.number().int())
    .describe(
      "micro-EUR per million tokens / per hour of audio / per million characters: prompt_micro_eur_per_million, completion_micro_eur_per_million, audio_micro_eur_per_hour, character_micro_eur_per_million, and for models with a prompt cache cached_prompt_micro_eur_per_million (cache reads), cache_write_micro_eur_per_million (5-minute writes), cache_write_1h_micro_eur_per_million (1-hour writes); a zero price is omitted, an omitted cache price means the prompt price.",
    ),
  supported_parameters: z.array(z.string()),
  context_length: z.number().int().optional(),
  reasoning: z.looseObject({}).optional(),
  voices: z.array(z.string()).optional(),
  deprecated_on: z.string().optional()
    .describe(
      "Addition: the provider deprecated the model on this date (YYYY-MM-DD); still served.",
    ),
  retires_on: z.string().optional()
    .describe(
      "Addition: from this date (UTC) the model is off; requests get 404 naming `successor`.",
    ),
  successor: z.string().optional().describe("Addition: the catalog model that replaces it."),
});

export const ModelListSchema = z.looseObject({
  object: z.literal("list"),
  data: z.array(ModelEntrySchema),
});

export const HealthSchema = z.looseObject({ status: z.literal("ok") });
