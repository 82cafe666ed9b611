/**
 * What the simulated model answers: plain text, a JSON document (response_format), tool calls,
 * or a summary of tool results; optionally with reasoning. Shared by the JSON and SSE renderers.
 */

import type { Behaviour } from "./behaviour.ts";
import { type ChatMessage, type ChatRequest, textOf } from "./chat_request.ts";
import {
  answerPlan,
  countWords,
  REASONING_TEXT,
  splitEvenly,
  type TextPlan,
  textPlan,
  truncatePlan,
} from "./text_plan.ts";
import { argumentsFromSchema, splitArguments, valueFromSchema } from "./tool_arguments.ts";

export type FinishReason = "stop" | "length" | "tool_calls";

export interface ToolCallPlan {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  /** Streamed `function.arguments` pieces, in order. */
  readonly fragments: readonly string[];
}

export interface ReasoningPlan {
  readonly text: string;
  readonly pieces: readonly string[];
  readonly signature: string;
  readonly tokens: number;
  /** False when the request asked for `reasoning.exclude`: reasoned and billed, not returned. */
  readonly returned: boolean;
}

export interface UsageCounts {
  readonly prompt: number;
  readonly completion: number;
  readonly reasoning: number;
  /** Of `prompt`: read from the simulator's prompt cache. */
  readonly cached?: number;
}

export interface ChatAnswer {
  /** Text content; undefined for tool calls (`content: null`). */
  readonly content: TextPlan | undefined;
  readonly toolCalls: readonly ToolCallPlan[];
  readonly reasoning: ReasoningPlan | undefined;
  readonly finishReason: FinishReason;
  readonly usage: UsageCounts;
}

/** Deterministic, opaque signature (stands in for Anthropic-style thinking signatures). */
export const REASONING_SIGNATURE = btoa("sovra-simulator-reasoning-signature-v1");
export const REASONING_FORMAT = "anthropic-claude-v1";
const REASONING_PLAN = textPlan(REASONING_TEXT, 4);

export function planAnswer(request: ChatRequest, behaviour: Behaviour, seq: number): ChatAnswer {
  const reasoning = planReasoning(request, behaviour);
  const reasoningTokens = reasoning?.tokens ?? 0;
  const prompt = promptTokens(request.messages);
  const calls = planToolCalls(request, behaviour, seq);
  if (calls.length > 0) {
    const completion = calls.reduce((sum, c) => sum + c.fragments.length + 1, 0);
    return {
      content: undefined,
      toolCalls: calls,
      reasoning,
      finishReason: "tool_calls",
      usage: { prompt, completion: completion + reasoningTokens, reasoning: reasoningTokens },
    };
  }
  let content = contentPlan(request, behaviour.chunks);
  let finishReason: FinishReason = "stop";
  const limit = request.max_completion_tokens ?? request.max_tokens;
  if (limit != null) {
    const cut = truncatePlan(content, limit, behaviour.chunks);
    if (cut !== undefined) {
      content = cut;
      finishReason = "length";
    }
  }
  return {
    content,
    toolCalls: [],
    reasoning,
    finishReason,
    usage: { prompt, completion: content.tokens + reasoningTokens, reasoning: reasoningTokens },
  };
}

function contentPlan(request: ChatRequest, chunks: number): TextPlan {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === "tool") {
    const results = trailingToolResults(request.messages);
    const noun = results === 1 ? "tool result" : "tool results";
    return textPlan(
      `I received ${results} ${noun} and used them to answer. The simulated upstream is done.`,
      chunks,
    );
  }
  const format = request.response_format;
  if (format?.type === "json_schema" || format?.type === "json_object") {
    const value = format.type === "json_schema"
      ? valueFromSchema(format.json_schema?.schema ?? { type: "object" })
      : { answer: "This is the simulated upstream answer." };
    const text = JSON.stringify(value);
    return { text, pieces: splitEvenly(text, chunks), tokens: Math.max(1, countWords(text)) };
  }
  return answerPlan(chunks);
}

function planReasoning(request: ChatRequest, behaviour: Behaviour): ReasoningPlan | undefined {
  const asked = request.reasoning;
  const enabledByRequest = (asked != null && asked.enabled !== false && asked.effort !== "none") ||
    (request.reasoning_effort != null && request.reasoning_effort !== "none");
  if (!behaviour.reasoning && !enabledByRequest) return undefined;
  return {
    text: REASONING_PLAN.text,
    pieces: REASONING_PLAN.pieces,
    signature: REASONING_SIGNATURE,
    tokens: REASONING_PLAN.tokens,
    returned: asked?.exclude !== true,
  };
}

function planToolCalls(request: ChatRequest, behaviour: Behaviour, seq: number): ToolCallPlan[] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  const last = request.messages[request.messages.length - 1];
  if (tools.length === 0 || choice === "none" || last?.role !== "user") return [];
  let chosen = tools;
  if (typeof choice === "object" && choice !== null && choice.function != null) {
    const name = choice.function.name;
    chosen = tools.filter((t) => t.function.name === name).slice(0, 1);
  } else {
    const parallel = behaviour.parallel && request.parallel_tool_calls !== false &&
      tools.length >= 2;
    chosen = tools.slice(0, parallel ? 2 : 1);
  }
  return chosen.map((tool, i) => {
    const args = argumentsFromSchema(tool.function.parameters);
    return {
      id: `call_${seq.toString(36).padStart(6, "0")}${i}sim`,
      name: tool.function.name,
      arguments: args,
      fragments: splitArguments(args),
    };
  });
}

function trailingToolResults(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--) n++;
  return n;
}

/** The prompt's tokens in order (words with their message's role), for the prompt cache. */
export function promptWords(messages: readonly ChatMessage[]): string[] {
  const words: string[] = [];
  for (const message of messages) {
    words.push(`<${message.role}>`);
    for (const word of textOf(message.content).split(/[ \t\n\r]+/)) if (word) words.push(word);
  }
  return words;
}

/** Prompt tokens: words over every message's text (strings and text parts), at least 1. */
function promptTokens(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const message of messages) n += countWords(textOf(message.content));
  return Math.max(1, n);
}
