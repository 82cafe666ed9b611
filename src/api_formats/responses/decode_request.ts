/**
 * A validated `POST /v1/responses` body → the canonical chat request. Refuses, with a 400
 * naming the field, what a stateless gateway that runs no tools cannot honour. The endpoint is
 * a rebuilding route: nothing is forwarded unless translated (`extra` stays empty); `text.format`
 * becomes `response_format`; fields it does not translate are ignored and named in
 * `x-sovra-dropped-params` (`ignored_fields.ts`).
 */
import type {
  ChatRequest,
  FunctionTool,
  ReasoningRequest,
  ToolChoice,
} from "../../canonical/chat.ts";
import type { Model } from "../../catalog/schema.ts";
import { refusedField } from "../../errors.ts";
import { breakpointOf, type CacheControl } from "../../canonical/cache_control_schema.ts";
import { decodeInput } from "./decode_input.ts";
import { translateTextFormat } from "./text_format.ts";
import { wantedReasoning } from "../../canonical/thinking.ts";
import type {
  ResponsesReasoning,
  ResponsesRequest,
  ResponsesTool,
  ResponsesToolChoice,
} from "./request_schema.ts";

export function decodeResponsesRequest(body: ResponsesRequest, model: Model): ChatRequest {
  if (body.store === true) {
    throw refusedField(
      "store",
      "'store: true' is not supported; the gateway stores no responses. Omit 'store' or send false.",
    );
  }
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw refusedField(
      "previous_response_id",
      "'previous_response_id' is not supported; the gateway stores no responses. Resend the " +
        "earlier turns in 'input'.",
    );
  }
  const { tools, hostedTools, toolBreakpoints } = splitTools(body.tools ?? []);
  if (hostedTools.length > 0) {
    throw refusedField(
      "tools",
      `Tools of type '${String(hostedTools[0]?.type)}' are not supported; the gateway runs no ` +
        "tools itself. Use function tools.",
    );
  }
  const toolChoice = decodeToolChoice(body.tool_choice);
  const reasoning = decodeReasoning(body.reasoning);
  const messages = decodeInput(body.input, body.instructions, {
    replayReasoning: replaysReasoning(model, reasoning),
  });

  const request: ChatRequest = {
    model: body.model,
    messages,
    stream: body.stream ?? false,
    extra: {},
  };
  if (body.temperature != null) request.temperature = body.temperature;
  if (body.top_p != null) request.topP = body.top_p;
  if (body.max_output_tokens != null) request.maxTokens = body.max_output_tokens;
  if (tools.length > 0) request.tools = tools;
  if (toolBreakpoints.length > 0) request.toolBreakpoints = toolBreakpoints;
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  if (body.parallel_tool_calls != null) request.parallelToolCalls = body.parallel_tool_calls;
  if (reasoning !== undefined) request.reasoning = reasoning;
  if (body.user != null) request.user = body.user;
  // Chat's name: forwarded where the model takes it (rule 1 decides, as on chat).
  if (body.prompt_cache_key != null) request.extra.prompt_cache_key = body.prompt_cache_key;
  const format = translateTextFormat(body.text?.format);
  if (format.kind === "translated") request.responseFormat = format.responseFormat;
  return request;
}

/**
 * Whether this request's tool loop must replay reasoning items: only when it thinks and the
 * reasoning is shown (with `exclude` the gateway may have had nothing to hand out).
 */
export function replaysReasoning(model: Model, reasoning: ReasoningRequest | undefined): boolean {
  return wantedReasoning(model.reasoning, reasoning) !== undefined && reasoning?.exclude !== true;
}

function splitTools(list: ResponsesTool[]): {
  tools: FunctionTool[];
  hostedTools: Array<Record<string, unknown>>;
  toolBreakpoints: NonNullable<ChatRequest["toolBreakpoints"]>;
} {
  const tools: FunctionTool[] = [];
  const hostedTools: Array<Record<string, unknown>> = [];
  const toolBreakpoints: NonNullable<ChatRequest["toolBreakpoints"]> = [];
  for (const [i, tool] of list.entries()) {
    if (tool.type !== "function" || typeof tool.name !== "string") {
      hostedTools.push(tool);
      continue;
    }
    const fn: FunctionTool["function"] = { name: tool.name };
    if (typeof tool.description === "string") fn.description = tool.description;
    if (isRecord(tool.parameters)) fn.parameters = tool.parameters;
    if (typeof tool.strict === "boolean") fn.strict = tool.strict;
    const cache = breakpointOf(
      tool.cache_control as CacheControl | null | undefined,
      `tools[${i}]`,
    );
    if (cache) toolBreakpoints.push({ tool: tools.length, cache });
    tools.push({ type: "function", function: fn });
  }
  return { tools, hostedTools, toolBreakpoints };
}

function decodeToolChoice(choice: ResponsesToolChoice | null | undefined): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === "string") return choice;
  if (choice.type === "function" && typeof choice.name === "string") {
    return { type: "function", function: { name: choice.name } };
  }
  throw refusedField(
    "tool_choice",
    `A 'tool_choice' of type '${choice.type}' is not supported; use 'none', 'auto', ` +
      "'required' or a named function.",
  );
}

function decodeReasoning(
  reasoning: ResponsesReasoning | null | undefined,
): ReasoningRequest | undefined {
  if (reasoning === undefined || reasoning === null) return undefined;
  const out: ReasoningRequest = {};
  if (reasoning.effort != null) out.effort = reasoning.effort;
  if (reasoning.max_tokens != null) out.maxTokens = reasoning.max_tokens;
  if (reasoning.exclude != null) out.exclude = reasoning.exclude;
  if (reasoning.enabled != null) out.enabled = reasoning.enabled;
  return Object.keys(out).length > 0 ? out : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
