/**
 * The Responses API `response` object as the gateway sends it (non-streamed body and the
 * `response` of lifecycle stream events). Shapes follow openai-node
 * `src/resources/responses/responses.ts`; tests assign them to the SDK's `Response` type.
 */
import type { ReasoningDetail, ReasoningEffort } from "../../canonical/chat.ts";
import type { Usage } from "../../canonical/usage.ts";

export type ItemStatus = "in_progress" | "completed" | "incomplete";

export interface ReasoningOutputItem {
  type: "reasoning";
  id: string;
  summary: Array<{ type: "summary_text"; text: string }>;
  content?: Array<{ type: "reasoning_text"; text: string }>;
  encrypted_content?: string;
  /** Sovra extension: replay it unchanged in the next request's `input`. */
  reasoning_details: ReasoningDetail[];
  status: ItemStatus;
}

export interface OutputTextPart {
  type: "output_text";
  text: string;
  annotations: never[];
}

export interface MessageOutputItem {
  type: "message";
  id: string;
  role: "assistant";
  status: ItemStatus;
  content: OutputTextPart[];
}

export interface FunctionCallOutputItem {
  type: "function_call";
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}

export type OutputItem = ReasoningOutputItem | MessageOutputItem | FunctionCallOutputItem;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

/** Only the codes of the SDK's `ResponseError` that the gateway uses. */
export interface ResponseErrorBody {
  code: "server_error" | "rate_limit_exceeded";
  message: string;
}

export interface WireFunctionTool {
  type: "function";
  name: string;
  description?: string;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

export type WireToolChoice =
  | "none"
  | "auto"
  | "required"
  | { type: "function"; name: string };

/** Request fields echoed in the response object, as the SDK types expect. */
export interface ResponseEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string> | null;
  parallel_tool_calls: boolean;
  reasoning: { effort: ReasoningEffort | null; summary: "auto" | "concise" | "detailed" | null };
  temperature: number | null;
  tool_choice: WireToolChoice;
  tools: WireFunctionTool[];
  top_p: number | null;
  user?: string;
}

export interface ResponseObject extends ResponseEcho {
  id: string;
  object: "response";
  created_at: number;
  completed_at?: number;
  status: ResponseStatus;
  error: ResponseErrorBody | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  model: string;
  output: OutputItem[];
  previous_response_id: null;
  store: false;
  /** Omitted when the provider reported no token counts (never invented). */
  usage?: ResponsesUsage;
}

/** What every encoder needs to know besides the canonical answer. */
export interface ResponseContext {
  /** `resp_…`, see `newResponseId`. */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The catalog id the client asked for. */
  model: string;
  /** `reasoning.exclude`: no readable reasoning in the output. */
  excludeReasoning: boolean;
  /**
   * True when the request thinks and shows its reasoning (`replaysReasoning`). Output tool
   * calls are then always preceded by a `reasoning` item (empty if the model showed none), so
   * the client can replay it as the decoder demands; otherwise a reasoning item appears only
   * when there is reasoning to show.
   */
  replayReasoning?: boolean;
  /** Request fields to echo; defaults otherwise (see `responseEcho`). */
  echo?: ResponseEcho;
}

export function newResponseId(): string {
  return `resp_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** Output item ids: `<prefix>_<response id without 'resp_'>_<output index>`. */
export function itemId(responseId: string, prefix: "rs" | "msg" | "fc", outputIndex: number) {
  const base = responseId.startsWith("resp_") ? responseId.slice(5) : responseId;
  return `${prefix}_${base}_${outputIndex}`;
}

export const DEFAULT_ECHO: ResponseEcho = {
  instructions: null,
  max_output_tokens: null,
  metadata: null,
  parallel_tool_calls: true,
  reasoning: { effort: null, summary: null },
  temperature: null,
  tool_choice: "auto",
  tools: [],
  top_p: null,
};

/**
 * Usage on the wire. Without both billable counts the whole object is omitted (the SDK types
 * make it optional); the detail counts the wire requires default to 0 when not reported,
 * which is the Responses API's own meaning of "none".
 */
export function encodeUsage(usage: Usage | undefined): ResponsesUsage | undefined {
  if (usage?.promptTokens === undefined || usage.completionTokens === undefined) return undefined;
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: {
      cached_tokens: usage.cachedPromptTokens ?? 0,
      cache_write_tokens: usage.cacheWritePromptTokens ?? 0,
    },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.totalTokens ?? usage.promptTokens + usage.completionTokens,
  };
}

/** A response object with everything but the answer-specific fields filled in. */
export function responseShell(
  ctx: ResponseContext,
  status: ResponseStatus,
  output: OutputItem[],
): ResponseObject {
  return {
    id: ctx.id,
    object: "response",
    created_at: ctx.createdAt,
    status,
    error: null,
    incomplete_details: null,
    model: ctx.model,
    output,
    previous_response_id: null,
    store: false,
    ...(ctx.echo ?? DEFAULT_ECHO),
  };
}
