/**
 * Canonical chat request → Anthropic Messages body (without `model`; the Vertex adapter adds
 * `anthropic_version` and `stream`). `response_format`, `n`, `user` and tool `strict` are not
 * sent (rule 1 / rule 8); refusals were decided before (rebuilding_refusals.ts).
 */
import type { CacheBreakpoint, ChatRequest, FunctionTool } from "../../canonical/chat.ts";
import type { ResolvedRoute } from "../../catalog/resolved_route.ts";
import {
  groupTurns,
  historyHasTools,
  toolNamesInHistory,
  type Turn,
  type TurnPart,
} from "./group_turns.ts";
import { anthropicReasoning, planTokens } from "./reasoning_budget.ts";

export interface MessagesBody {
  max_tokens: number;
  messages: Array<{ role: "user" | "assistant"; content: Array<Record<string, unknown>> }>;
  system?: Array<{ type: "text"; text: string; cache_control?: CacheControl }>;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  tools?: Array<
    {
      name: string;
      description?: string;
      input_schema: Record<string, unknown>;
      cache_control?: CacheControl;
    }
  >;
  tool_choice?: Record<string, unknown>;
  thinking?: { type: "enabled"; budget_tokens: number };
}

/** Anthropic's breakpoint: `ephemeral`, with a TTL only when it is not the default 5 minutes. */
export interface CacheControl {
  type: "ephemeral";
  ttl?: "1h";
}

export function cacheControl(cache: CacheBreakpoint): CacheControl {
  return cache.ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

export function toMessagesBody(request: ChatRequest, route: ResolvedRoute): MessagesBody {
  const { system, turns } = groupTurns(request.messages);
  const reasoning = anthropicReasoning(request, route);
  const plan = planTokens(request, route, reasoning);
  const body: MessagesBody = { max_tokens: plan.maxTokens, messages: turns.map(toMessage) };
  if (system.length > 0) {
    body.system = system.map((block) =>
      block.cache
        ? { type: "text", text: block.text, cache_control: cacheControl(block.cache) }
        : { type: "text", text: block.text }
    );
  }
  const stop = (request.stop ?? []).filter((s) => s.trim() !== "");
  if (stop.length > 0) body.stop_sequences = stop;
  if (plan.thinkingBudget !== undefined) {
    // Thinking forbids a changed temperature and top_p outside 0.95–1: both are left out.
    body.thinking = { type: "enabled", budget_tokens: plan.thinkingBudget };
  } else {
    if (request.temperature !== undefined) body.temperature = Math.min(request.temperature, 1);
    if (request.topP !== undefined) body.top_p = request.topP;
  }
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(toAnthropicTool);
    for (const { tool, cache } of request.toolBreakpoints ?? []) {
      const marked = body.tools[tool];
      if (marked) marked.cache_control = cacheControl(cache);
    }
    const choice = toolChoice(request);
    if (choice !== undefined) body.tool_choice = choice;
  } else if (historyHasTools(turns)) {
    // The history holds tool blocks but the request lists no tools: Anthropic needs the tool
    // definitions, so placeholders stand in, and tool use stays off.
    body.tools = toolNamesInHistory(turns).map((name) => ({
      name,
      input_schema: { type: "object" },
    }));
    body.tool_choice = { type: "none" };
  }
  return body;
}

function toAnthropicTool(tool: FunctionTool): NonNullable<MessagesBody["tools"]>[number] {
  const { name, description, parameters } = tool.function;
  return {
    name,
    ...(description === undefined ? {} : { description }),
    input_schema: { type: "object", ...(parameters ?? {}) },
  };
}

function toolChoice(request: ChatRequest): Record<string, unknown> | undefined {
  const noParallel = request.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  const choice = request.toolChoice;
  if (choice === undefined) {
    return request.parallelToolCalls === false ? { type: "auto", ...noParallel } : undefined;
  }
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return { type: "auto", ...noParallel };
  if (choice === "required") return { type: "any", ...noParallel };
  return { type: "tool", name: choice.function.name, ...noParallel };
}

function toMessage(turn: Turn): MessagesBody["messages"][number] {
  return { role: turn.role, content: turn.parts.map(toBlock) };
}

function toBlock(part: TurnPart): Record<string, unknown> {
  switch (part.kind) {
    case "text":
      return part.cache
        ? { type: "text", text: part.text, cache_control: cacheControl(part.cache) }
        : { type: "text", text: part.text };
    case "thinking":
      return { type: "thinking", thinking: part.text, signature: part.signature };
    case "redacted-thinking":
      return { type: "redacted_thinking", data: part.data };
    case "tool-use":
      return { type: "tool_use", id: part.id, name: part.name, input: part.input };
    case "tool-result":
      return part.cache
        ? {
          type: "tool_result",
          tool_use_id: part.toolUseId,
          content: part.content,
          cache_control: cacheControl(part.cache),
        }
        : { type: "tool_result", tool_use_id: part.toolUseId, content: part.content };
    default:
      return part satisfies never;
  }
}
