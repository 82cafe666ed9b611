/**
 * Canonical chat messages → strictly alternating user/assistant turns, the shape both
 * Anthropic Messages and Bedrock Converse need. System messages are collected apart;
 * consecutive tool results (and a user message that follows them) merge into one user turn;
 * an assistant turn's `reasoningDetails` become thinking parts placed first, with signatures
 * and data unchanged.
 */
import type {
  CacheBreakpoint,
  ChatMessage,
  ReasoningDetail,
  TextPart,
  ToolCall,
} from "../../canonical/chat.ts";
import { type GatewayError, invalidRequest } from "../../errors.ts";

/** `cache`: a prompt-cache breakpoint right after this part (the request's, kept in place). */
export type TurnPart =
  | { kind: "text"; text: string; cache?: CacheBreakpoint }
  | { kind: "thinking"; text: string; signature: string }
  | { kind: "redacted-thinking"; data: string }
  | { kind: "tool-use"; id: string; name: string; input: Record<string, unknown> }
  | { kind: "tool-result"; toolUseId: string; content: string; cache?: CacheBreakpoint };

export interface Turn {
  role: "user" | "assistant";
  parts: TurnPart[];
}

/** A system prompt block, with the breakpoint that follows it, if any. */
export interface SystemBlock {
  text: string;
  cache?: CacheBreakpoint;
}

export interface Conversation {
  system: SystemBlock[];
  turns: Turn[];
}

/** The reasoning format this family emits and accepts back. */
export const ANTHROPIC_REASONING_FORMAT = "anthropic-claude-v1";

export function groupTurns(messages: readonly ChatMessage[]): Conversation {
  const system: SystemBlock[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], parts: TurnPart[]) => {
    if (parts.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else turns.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
        // Whitespace-only system text is left out (the upstreams refuse blank blocks).
        for (const part of textParts(message.content, message.parts)) {
          if (part.kind !== "text" || part.text.trim() === "") continue;
          system.push(part.cache ? { text: part.text, cache: part.cache } : { text: part.text });
        }
        break;
      case "user":
        push("user", textParts(message.content, message.parts));
        break;
      case "tool": {
        const cache = message.parts?.findLast((p) => p.cache)?.cache;
        push("user", [{
          kind: "tool-result",
          toolUseId: message.toolCallId,
          content: message.content,
          ...(cache ? { cache } : {}),
        }]);
        break;
      }
      case "assistant":
        push("assistant", [
          ...thinkingParts(message.reasoningDetails ?? []),
          ...textParts(message.content ?? "", message.parts),
          ...(message.toolCalls ?? []).map(toolUsePart),
        ]);
        break;
      default:
        message satisfies never;
    }
  }
  for (const turn of turns) turn.parts.sort((a, b) => rank(turn.role, a) - rank(turn.role, b));
  return { system, turns };
}

/** Names of tools used in the history, for a placeholder tool list when the request has none. */
export function toolNamesInHistory(turns: readonly Turn[]): string[] {
  const names = new Set<string>();
  for (const turn of turns) {
    for (const part of turn.parts) if (part.kind === "tool-use") names.add(part.name);
  }
  return [...names];
}

/** True when any turn holds a tool use or tool result. */
export function historyHasTools(turns: readonly Turn[]): boolean {
  return turns.some((t) => t.parts.some((p) => p.kind === "tool-use" || p.kind === "tool-result"));
}

/**
 * A message's text as text parts: one, or (with a breakpoint) one per client part, empty ones
 * left out — a breakpoint on an empty part moves to the part before it in the message.
 */
function textParts(text: string, parts?: readonly TextPart[]): TurnPart[] {
  if (parts === undefined) return text === "" ? [] : [{ kind: "text", text }];
  const out: Array<{ kind: "text"; text: string; cache?: CacheBreakpoint }> = [];
  for (const part of parts) {
    if (part.text !== "") out.push({ kind: "text", text: part.text });
    const last = out.at(-1);
    if (part.cache && last) last.cache = part.cache;
  }
  return out;
}

/**
 * A tool call's arguments as the JSON object these upstreams need, or `undefined` when they
 * are not one (rule 7 refuses such a request on these routes before any call).
 */
export function toolCallInput(call: ToolCall): Record<string, unknown> | undefined {
  let input: unknown;
  try {
    input = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch {
    return undefined;
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  return input as Record<string, unknown>;
}

/** The refusal of a tool call whose arguments are not a JSON object. */
export function toolArgumentsRefusal(call: ToolCall): GatewayError {
  return invalidRequest(
    `Tool call '${call.id}' has arguments that are not a JSON object; this route needs one.`,
    "messages",
  );
}

function toolUsePart(call: ToolCall): TurnPart {
  const input = toolCallInput(call);
  // Refused by the routing plan before any call (rule 7); kept as a guard for direct callers.
  if (input === undefined) throw toolArgumentsRefusal(call);
  return { kind: "tool-use", id: call.id, name: call.function.name, input };
}

/**
 * Reasoning details of this family (format `anthropic-claude-v1` or none given) back to
 * thinking parts. Fragments that share an `index` (a streamed answer the client did not
 * merge) are joined: texts concatenated, the last non-empty signature kept. Text without a
 * signature and other formats cannot be verified upstream and are left out.
 */
function thinkingParts(details: readonly ReasoningDetail[]): TurnPart[] {
  const parts: TurnPart[] = [];
  const byIndex = new Map<number, { kind: "thinking"; text: string; signature: string }>();
  for (const detail of details) {
    if (
      detail.format !== undefined && detail.format !== null &&
      detail.format !== ANTHROPIC_REASONING_FORMAT
    ) {
      continue;
    }
    switch (detail.type) {
      case "reasoning.text": {
        const existing = detail.index === undefined ? undefined : byIndex.get(detail.index);
        if (existing !== undefined) {
          existing.text += detail.text ?? "";
          if (detail.signature) existing.signature = detail.signature;
          break;
        }
        const part = {
          kind: "thinking" as const,
          text: detail.text ?? "",
          signature: detail.signature ?? "",
        };
        if (detail.index !== undefined) byIndex.set(detail.index, part);
        parts.push(part);
        break;
      }
      case "reasoning.encrypted":
        parts.push({ kind: "redacted-thinking", data: detail.data });
        break;
      case "reasoning.summary":
        break;
      default:
        detail satisfies never;
    }
  }
  return parts.filter((p) => p.kind !== "thinking" || p.signature !== "");
}

function rank(role: Turn["role"], part: TurnPart): number {
  if (role === "user") return part.kind === "tool-result" ? 0 : 1;
  switch (part.kind) {
    case "thinking":
    case "redacted-thinking":
      return 0;
    case "tool-use":
      return 2;
    default:
      return 1;
  }
}
