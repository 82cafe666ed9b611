/**
 * The part both rebuilding simulators share: a neutral view of the conversation, the checks
 * the real services make on it, thinking signatures this simulator issues, and the answer
 * plan (thinking, text or a tool call) with deterministic usage.
 */
import { createHmac } from "node:crypto";
import { argumentsFromSchema, splitArguments } from "../openai/tool_arguments.ts";
import { answerPlan, countWords, REASONING_TEXT } from "../openai/text_plan.ts";
import type { RebuildingBehaviour } from "./behaviour.ts";
import { prefixHash, type SimCacheUse, type SimTtl } from "../prompt_cache.ts";

export type SimBlock =
  | { kind: "text"; text: string }
  | { kind: "tool_use"; id: string; name: string; input: unknown }
  | { kind: "tool_result"; id: string; text: string }
  | { kind: "thinking"; text: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "other" };

export interface SimTurn {
  role: string;
  blocks: SimBlock[];
}

export interface SimRequest {
  system: string[];
  turns: SimTurn[];
  tools: Array<{ name: string; schema: unknown }>;
  /** `auto` (default), `any`, `none` or a tool name. */
  choice: { type: "auto" | "any" | "none" } | { type: "tool"; name: string };
  thinking: { budget: number } | undefined;
  maxTokens: number | undefined;
  /**
   * The request's cache breakpoints in prompt order (tools, system, messages): the prompt's
   * content up to each (without the markers) and the TTL asked.
   */
  cachePoints: Array<{ prefix: string; ttl: unknown }>;
}

export type PlanBlock =
  | { kind: "thinking"; pieces: string[]; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "text"; pieces: string[] }
  | { kind: "tool"; id: string; name: string; input: unknown; pieces: string[] };

export interface AnswerPlan {
  blocks: PlanBlock[];
  stopReason: "end_turn" | "tool_use";
  usage: {
    input: number;
    output: number;
    cacheRead: number | undefined;
    cacheWrite: number | undefined;
    /** Of `cacheWrite`: with the 1-hour TTL (reported only when there were writes). */
    cacheWrite1h?: number | undefined;
  };
}

/** The most cache breakpoints a request may carry (Anthropic's and Bedrock's limit). */
export const MAX_CACHE_POINTS = 4;

const SECRET = crypto.getRandomValues(new Uint8Array(32));
export const CACHE_READ_TOKENS = 12;
export const CACHE_WRITE_TOKENS = 5;

export function signThinking(text: string): string {
  return createHmac("sha256", SECRET).update(`thinking:${text}`).digest("base64");
}

export function redactedData(n: number): string {
  const mac = createHmac("sha256", SECRET).update(`redacted:${n}`).digest("hex");
  return btoa(`${n}:${mac}`);
}

function redactedValid(data: string): boolean {
  try {
    const [n] = atob(data).split(":");
    return n !== undefined && /^\d+$/.test(n) && redactedData(Number(n)) === data;
  } catch {
    return false;
  }
}

/** What the real services reject; undefined when the request is acceptable. */
export function validate(request: SimRequest): string | undefined {
  const { turns } = request;
  const points = request.cachePoints;
  if (points.length > MAX_CACHE_POINTS) {
    return `A maximum of ${MAX_CACHE_POINTS} blocks with cache_control may be provided. Found ${points.length}.`;
  }
  for (const point of points) {
    if (point.ttl !== "5m" && point.ttl !== "1h") {
      return `cache_control.ttl: Input should be '5m' or '1h'`;
    }
  }
  const firstShort = points.findIndex((p) => p.ttl === "5m");
  if (firstShort >= 0 && points.slice(firstShort).some((p) => p.ttl === "1h")) {
    return "A cache_control with ttl '1h' must not come after one with ttl '5m'.";
  }
  if (turns.length === 0) return "messages: at least one message is required";
  for (const [i, turn] of turns.entries()) {
    const expected = i % 2 === 0 ? "user" : "assistant";
    if (turn.role !== expected) {
      return `messages: roles must alternate between "user" and "assistant", starting with "user" (message ${i})`;
    }
    if (turn.blocks.length === 0) return `messages.${i}: content must not be empty`;
    const previous = turns[i - 1];
    const uses = previous?.role === "assistant"
      ? previous.blocks.flatMap((b) => (b.kind === "tool_use" ? [b.id] : []))
      : [];
    const results = turn.blocks.flatMap((b) => (b.kind === "tool_result" ? [b.id] : []));
    for (const id of results) {
      if (!uses.includes(id)) {
        return `messages.${i}: tool_result id '${id}' does not match a tool_use in the previous message`;
      }
    }
    if (turn.role === "user" && uses.length > 0) {
      for (const id of uses) {
        if (!results.includes(id)) return `messages.${i}: tool_use '${id}' has no tool_result`;
      }
    }
    for (const block of turn.blocks) {
      if (block.kind === "thinking" && block.signature !== signThinking(block.text)) {
        return `messages.${i}: invalid signature in thinking block`;
      }
      if (block.kind === "redacted" && !redactedValid(block.data)) {
        return `messages.${i}: invalid data in redacted_thinking block`;
      }
    }
  }
  if (request.thinking !== undefined) {
    if (request.choice.type === "any" || request.choice.type === "tool") {
      return "Thinking may not be enabled when tool_choice forces tool use.";
    }
    if (request.thinking.budget < 1024) return "thinking.budget_tokens: must be at least 1024";
    if (request.maxTokens !== undefined && request.thinking.budget >= request.maxTokens) {
      return "max_tokens must be greater than thinking.budget_tokens";
    }
    const lastAssistant = turns.findLast((t) => t.role === "assistant");
    const first = lastAssistant?.blocks[0];
    if (
      lastAssistant?.blocks.some((b) => b.kind === "tool_use") && first?.kind !== "thinking" &&
      first?.kind !== "redacted"
    ) {
      return "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When thinking is enabled, " +
        "a final assistant message must start with a thinking block.";
    }
  }
  return undefined;
}

/**
 * The request's cache points for the simulator's cache: each prefix hashed with the model,
 * its tokens (characters / 4, as the input count) at most the whole prompt's.
 */
export function cachePointsOf(
  request: SimRequest,
  model: string,
): Array<{ hash: string; tokens: number; ttl: SimTtl }> {
  const total = inputTokens(request);
  return request.cachePoints.map((p) => ({
    hash: prefixHash(model, p.prefix),
    tokens: Math.min(total, Math.ceil(p.prefix.length / 4)),
    ttl: p.ttl === "1h" ? "1h" : "5m",
  }));
}

function inputTokens(request: SimRequest): number {
  return Math.ceil(
    JSON.stringify({ system: request.system, turns: request.turns, tools: request.tools }).length /
      4,
  );
}

/**
 * Thinking (when asked and the model token says so), then a tool call or a text answer.
 * `cache`: what the simulator's prompt cache read and wrote for this request; the input
 * count is then what lies outside both, as the providers count it.
 */
export function planAnswer(
  request: SimRequest,
  behaviour: RebuildingBehaviour,
  toolIdPrefix: string,
  cache?: SimCacheUse,
): AnswerPlan {
  const blocks: PlanBlock[] = [];
  if (request.thinking !== undefined && behaviour.reasoning) {
    blocks.push({
      kind: "thinking",
      pieces: REASONING_TEXT.split(/(?<= )/),
      signature: signThinking(REASONING_TEXT),
    });
  }
  if (request.thinking !== undefined && behaviour.redacted) {
    blocks.push({ kind: "redacted", data: redactedData(1) });
  }
  const last = request.turns.at(-1);
  const results = last?.blocks.flatMap((b) => (b.kind === "tool_result" ? [b.text] : [])) ?? [];
  const tool = pickTool(request);
  let stopReason: AnswerPlan["stopReason"] = "end_turn";
  if (results.length > 0) {
    blocks.push({
      kind: "text",
      pieces: `The tool returned: ${results.join(" | ")}`.split(/(?<= )/),
    });
  } else if (tool !== undefined) {
    const args = argumentsFromSchema(tool.schema);
    const id = `${toolIdPrefix}${
      countWords(JSON.stringify(request.turns)).toString(36)
    }${request.turns.length}`;
    blocks.push({
      kind: "tool",
      id,
      name: tool.name,
      input: JSON.parse(args),
      pieces: splitArguments(args),
    });
    stopReason = "tool_use";
  } else {
    blocks.push({ kind: "text", pieces: [...answerPlan(8).pieces] });
  }
  const input = inputTokens(request);
  const output = blocks.reduce(
    (sum, b) => sum + (b.kind === "redacted" ? 3 : countWords(b.pieces?.join("") ?? "")),
    0,
  );
  if (cache !== undefined && !behaviour.cached) {
    return {
      blocks,
      stopReason,
      usage: {
        input: input - cache.read - cache.write,
        output,
        cacheRead: cache.read,
        cacheWrite: cache.write,
        cacheWrite1h: cache.write1h,
      },
    };
  }
  return {
    blocks,
    stopReason,
    usage: {
      input,
      output,
      cacheRead: behaviour.cached ? CACHE_READ_TOKENS : undefined,
      cacheWrite: behaviour.cached ? CACHE_WRITE_TOKENS : undefined,
    },
  };
}

function pickTool(request: SimRequest): { name: string; schema: unknown } | undefined {
  if (request.tools.length === 0 || request.choice.type === "none") return undefined;
  const choice = request.choice;
  if (choice.type === "tool") return request.tools.find((t) => t.name === choice.name);
  return request.tools[0];
}
