/**
 * The gateway's own chat request, result and stream events. Client API formats (chat
 * completions, responses) decode into these; provider adapters encode from them and decode
 * their upstream answers back into them.
 */
import type { Usage } from "./usage.ts";

/** How long a provider keeps a cached prompt prefix: Anthropic's `ephemeral` TTLs. */
export type CacheTtl = "5m" | "1h";

/**
 * A prompt-cache breakpoint (`cache_control: {type: "ephemeral", ttl?}`): the prompt up to and
 * including the part it is on may be cached by the provider.
 */
export interface CacheBreakpoint {
  ttl: CacheTtl;
  /** Where the client put it (`messages[2].content[1]`, `tools[0]`), for refusals. */
  at: string;
}

/**
 * One text part of a message that carries a cache breakpoint somewhere: the parts' texts joined
 * are exactly the message's `content`. Kept only on messages with a breakpoint (the rebuilding
 * routes place the breakpoints by them); every other reader uses `content`.
 */
export interface TextPart {
  text: string;
  cache?: CacheBreakpoint;
}

/** OpenRouter-style structured reasoning, round-tripped unchanged in tool loops. */
export type ReasoningDetail =
  | {
    type: "reasoning.text";
    text?: string | null;
    signature?: string | null;
    id?: string | null;
    format?: string | null;
    index?: number;
  }
  | {
    type: "reasoning.summary";
    summary: string;
    id?: string | null;
    format?: string | null;
    index?: number;
  }
  | {
    type: "reasoning.encrypted";
    data: string;
    id?: string | null;
    format?: string | null;
    index?: number;
  };

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string; name?: string; parts?: TextPart[] }
  /** `origin`: where the client put it when not `messages[i]` (Responses: `input[3]`). */
  | { role: "user"; content: string; name?: string; origin?: string; parts?: TextPart[] }
  | {
    role: "assistant";
    content: string | null;
    name?: string;
    toolCalls?: ToolCall[];
    reasoning?: string;
    reasoningDetails?: ReasoningDetail[];
    parts?: TextPart[];
  }
  | {
    role: "tool";
    content: string;
    toolCallId: string;
    name?: string;
    origin?: string;
    parts?: TextPart[];
  };

export interface FunctionTool {
  type: "function";
  function: {
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
    strict?: boolean | null;
  };
}

export type ToolChoice =
  | "none"
  | "auto"
  | "required"
  | { type: "function"; function: { name: string } };

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";

export interface ReasoningRequest {
  effort?: ReasoningEffort;
  maxTokens?: number;
  exclude?: boolean;
  enabled?: boolean;
}

/**
 * The canonical chat request. Field names are camelCase; `extra` carries client fields the
 * gateway does not interpret, forwarded only to `openai`-dialect upstreams (rule 1 filtering
 * applies to them too).
 */
export interface ChatRequest {
  /** The catalog id the client asked for, e.g. `mistral/mistral-large-2512`. */
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  n?: number;
  tools?: FunctionTool[];
  /** Non-function tools (web search, MCP …): refused on rebuilding routes. */
  hostedTools?: Array<Record<string, unknown>>;
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  responseFormat?: Record<string, unknown>;
  reasoning?: ReasoningRequest;
  user?: string;
  /**
   * Cache breakpoints on tool definitions (`tools[i].cache_control`), by index in `tools`: the
   * tool objects themselves are sent without it on routes that pass tools on.
   */
  toolBreakpoints?: Array<{ tool: number; cache: CacheBreakpoint }>;
  /** Other client fields, passed through unchanged where the dialect allows. */
  extra: Record<string, unknown>;
  /**
   * The client's JSON body as sent (chat completions only): an `openai`-dialect route forwards
   * these bytes, edited only where a value had to change (`providers/openai/stable_body.ts`).
   */
  clientBody?: ClientBody;
}

/** A client's JSON body: its text as received and the value it parsed to. */
export interface ClientBody {
  text: string;
  value: unknown;
}

/**
 * Why a choice ended, as every client format reports it. `other`: the upstream gave a reason no
 * mapper knows; its own value is kept beside it (`rawFinishReason`, the `finish` event's `raw`).
 */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error" | "other";

/** One answer choice (`n` > 1 asks for several; only `openai`-dialect routes give them). */
export interface ChoiceResult {
  content: string | null;
  reasoning?: string;
  reasoningDetails?: ReasoningDetail[];
  toolCalls?: ToolCall[];
  finishReason: FinishReason;
  /** The upstream's own finish reason beside `other` (one no mapper knows). */
  rawFinishReason?: string;
}

/** A whole (non-streamed) answer: choice 0 inline, further choices (if `n` > 1) after it. */
export interface ChatResult extends ChoiceResult {
  /** Upstream response id, if any; the gateway may replace it. */
  id?: string;
  /** Choices 1…n−1, in order. */
  moreChoices?: ChoiceResult[];
  /** Usage of the whole answer (all choices). */
  usage: Usage | undefined;
}

/**
 * One event of a canonical stream. Every switch over it is exhaustive. `choice` is the answer
 * choice an event belongs to when `n` > 1 (absent: choice 0).
 */
export type ChatStreamEvent =
  | { type: "text-delta"; text: string; choice?: number }
  | { type: "reasoning-delta"; text: string; choice?: number }
  /** A fragment of a structured reasoning detail (signature, encrypted data, …). */
  | { type: "reasoning-detail"; detail: ReasoningDetail; choice?: number }
  /** A tool call fragment; `id` and `name` come with the first fragment of each index. */
  | {
    type: "tool-call-delta";
    index: number;
    id?: string;
    name?: string;
    arguments: string;
    choice?: number;
  }
  /** `raw`: the upstream's own finish reason beside `other` (one no mapper knows). */
  | { type: "finish"; reason: FinishReason; raw?: string; choice?: number }
  | { type: "usage"; usage: Usage };
