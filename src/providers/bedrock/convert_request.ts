/**
 * Canonical chat request → Bedrock Converse body (`modelId` goes in the path). Thinking goes
 * through `additionalModelRequestFields`: `thinking` for Anthropic models, `reasoningConfig`
 * for Amazon Nova; other families get no reasoning field (rule 1). Bedrock has no
 * `toolChoice` `none` and no parallel switch: those are refused before (rebuilding_refusals.ts).
 */
import type { CacheBreakpoint, ChatRequest, FunctionTool } from "../../canonical/chat.ts";
import type { ResolvedRoute } from "../../catalog/resolved_route.ts";
import { isAnthropicFamily } from "../anthropic_messages/family.ts";
import {
  groupTurns,
  historyHasTools,
  toolNamesInHistory,
  type Turn,
  type TurnPart,
} from "../anthropic_messages/group_turns.ts";
import {
  anthropicReasoning,
  effectiveReasoning,
  novaEffort,
  planTokens,
} from "../anthropic_messages/reasoning_budget.ts";

/** Bedrock's breakpoint block (`cachePoint`), placed right after what it caches. */
export interface CachePointBlock {
  cachePoint: { type: "default"; ttl?: "1h" };
}

export function cachePoint(cache: CacheBreakpoint): CachePointBlock {
  return { cachePoint: cache.ttl === "1h" ? { type: "default", ttl: "1h" } : { type: "default" } };
}

export interface ConverseBody {
  messages: Array<{ role: "user" | "assistant"; content: Array<Record<string, unknown>> }>;
  system?: Array<{ text: string } | CachePointBlock>;
  inferenceConfig?: {
    maxTokens?: number;
    temperature?: number;
    topP?: number;
    stopSequences?: string[];
  };
  toolConfig?: {
    tools: Array<
      {
        toolSpec: {
          name: string;
          description?: string;
          inputSchema: { json: Record<string, unknown> };
        };
      } | CachePointBlock
    >;
    toolChoice?: Record<string, unknown>;
  };
  additionalModelRequestFields?: Record<string, unknown>;
}

export function toConverseBody(request: ChatRequest, route: ResolvedRoute): ConverseBody {
  const anthropic = isAnthropicFamily(route.route.upstream_model);
  const nova = route.route.upstream_model.toLowerCase().includes("nova");
  const { system, turns } = groupTurns(request.messages);
  const body: ConverseBody = { messages: turns.map(toMessage) };
  if (system.length > 0) {
    body.system = system.flatMap((block) =>
      block.cache ? [{ text: block.text }, cachePoint(block.cache)] : [{ text: block.text }]
    );
  }

  const reasoning = anthropic
    ? anthropicReasoning(request, route)
    : nova
    ? effectiveReasoning(request, route)
    : undefined;
  const inference: NonNullable<ConverseBody["inferenceConfig"]> = {};
  if (anthropic) {
    // Anthropic requires max_tokens; the plan also fits the thinking budget below it.
    const plan = planTokens(request, route, reasoning);
    inference.maxTokens = plan.maxTokens;
    if (plan.thinkingBudget !== undefined) {
      body.additionalModelRequestFields = {
        thinking: { type: "enabled", budget_tokens: plan.thinkingBudget },
      };
    }
  } else {
    if (request.maxTokens !== undefined) inference.maxTokens = request.maxTokens;
    if (reasoning !== undefined) {
      body.additionalModelRequestFields = {
        reasoningConfig: { type: "enabled", maxReasoningEffort: novaEffort(reasoning) },
      };
    }
  }
  // Anthropic thinking forbids a changed temperature and top_p outside 0.95–1: left out then.
  if (!(anthropic && reasoning !== undefined)) {
    if (request.temperature !== undefined) inference.temperature = Math.min(request.temperature, 1);
    if (request.topP !== undefined) inference.topP = request.topP;
  }
  const stop = (request.stop ?? []).filter((s) => s.trim() !== "");
  if (stop.length > 0) inference.stopSequences = stop;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;

  const tools = request.tools ?? [];
  if (tools.length > 0) {
    const marks = new Map((request.toolBreakpoints ?? []).map((b) => [b.tool, b.cache]));
    body.toolConfig = {
      tools: tools.flatMap((tool, i) => {
        const cache = marks.get(i);
        return cache ? [toToolSpec(tool), cachePoint(cache)] : [toToolSpec(tool)];
      }),
    };
    const choice = toolChoice(request);
    if (choice !== undefined) body.toolConfig.toolChoice = choice;
  } else if (historyHasTools(turns)) {
    // Bedrock rejects tool blocks in the history without a toolConfig: placeholders stand in.
    body.toolConfig = {
      tools: toolNamesInHistory(turns).map((name) => ({
        toolSpec: { name, inputSchema: { json: { type: "object" } } },
      })),
    };
  }
  return body;
}

function toToolSpec(tool: FunctionTool): {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
} {
  const { name, description, parameters } = tool.function;
  return {
    toolSpec: {
      name,
      ...(description === undefined ? {} : { description }),
      inputSchema: { json: { type: "object", ...(parameters ?? {}) } },
    },
  };
}

function toolChoice(request: ChatRequest): Record<string, unknown> | undefined {
  const choice = request.toolChoice;
  if (choice === undefined || choice === "none") return undefined;
  if (choice === "auto") return { auto: {} };
  if (choice === "required") return { any: {} };
  return { tool: { name: choice.function.name } };
}

function toMessage(turn: Turn): ConverseBody["messages"][number] {
  return {
    role: turn.role,
    content: turn.parts.flatMap((part): Array<Record<string, unknown>> => {
      const block = toBlock(part);
      const cache = part.kind === "text" || part.kind === "tool-result" ? part.cache : undefined;
      return cache ? [block, { ...cachePoint(cache) }] : [block];
    }),
  };
}

function toBlock(part: TurnPart): Record<string, unknown> {
  switch (part.kind) {
    case "text":
      return { text: part.text };
    case "thinking":
      return {
        reasoningContent: { reasoningText: { text: part.text, signature: part.signature } },
      };
    case "redacted-thinking":
      return { reasoningContent: { redactedContent: part.data } };
    case "tool-use":
      return { toolUse: { toolUseId: part.id, name: part.name, input: part.input } };
    case "tool-result":
      return {
        toolResult: {
          toolUseId: part.toolUseId,
          content: part.content === "" ? [] : [{ text: part.content }],
        },
      };
    default:
      return part satisfies never;
  }
}
