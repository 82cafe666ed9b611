/** Chat-completions body → canonical `ChatRequest`. */
import type {
  ChatMessage,
  ChatRequest,
  FunctionTool,
  ReasoningDetail,
  TextPart,
} from "../../canonical/chat.ts";
import { invalidRequest } from "../../errors.ts";
import type { ChatCompletionRequestBody } from "./request_schema.ts";
import type { z } from "zod";
import type { ChatMessageSchema, MessageContent } from "./request_schema.ts";
import { breakpointOf, type CacheControl } from "../../canonical/cache_control_schema.ts";

const KNOWN_FIELDS = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "stop",
  "n",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "reasoning",
  "reasoning_effort",
  "user",
]);

/** A message's text, and its parts when a cache breakpoint sits on one of them (or on it). */
interface DecodedContent {
  text: string | null;
  parts?: TextPart[];
}

function decodeContent(
  content: z.infer<typeof MessageContent> | undefined,
  index: number,
  messageCache: CacheControl | null | undefined,
): DecodedContent {
  const onMessage = breakpointOf(messageCache, `messages[${index}]`);
  if (content === undefined || content === null) return { text: null };
  if (typeof content === "string") {
    return onMessage ? { text: content, parts: [{ text: content, cache: onMessage }] } : {
      text: content,
    };
  }
  let out = "";
  const parts: TextPart[] = [];
  let cached = false;
  for (const [j, part] of content.entries()) {
    if (part.type !== "text" || typeof part.text !== "string") {
      throw invalidRequest(
        `messages[${index}].content: content parts of type '${part.type}' are not supported; send text.`,
        "messages",
      );
    }
    out += part.text;
    const cache = breakpointOf(
      (part as { cache_control?: CacheControl | null }).cache_control,
      `messages[${index}].content[${j}]`,
    );
    cached ||= cache !== undefined;
    parts.push(cache ? { text: part.text, cache } : { text: part.text });
  }
  // A breakpoint on the message itself marks the end of its last part.
  if (onMessage) {
    const last = parts.at(-1);
    if (last) last.cache = onMessage;
    else parts.push({ text: "", cache: onMessage });
    cached = true;
  }
  return cached ? { text: out, parts } : { text: out };
}

function decodeMessage(m: z.infer<typeof ChatMessageSchema>, index: number): ChatMessage {
  const name = m.name === undefined ? {} : { name: m.name };
  const decoded = decodeContent(m.content, index, m.cache_control);
  const parts = decoded.parts ? { parts: decoded.parts } : {};
  switch (m.role) {
    case "system":
    case "developer":
      return { role: "system", content: decoded.text ?? "", ...name, ...parts };
    case "user":
      return { role: "user", content: decoded.text ?? "", ...name, ...parts };
    case "tool":
      return {
        role: "tool",
        content: decoded.text ?? "",
        toolCallId: m.tool_call_id,
        ...name,
        ...parts,
      };
    case "assistant": {
      const out: ChatMessage = { role: "assistant", content: decoded.text, ...name, ...parts };
      if (m.tool_calls && m.tool_calls.length > 0) {
        out.toolCalls = m.tool_calls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.function.name, arguments: c.function.arguments },
        }));
      }
      if (m.reasoning) out.reasoning = m.reasoning;
      if (m.reasoning_details && m.reasoning_details.length > 0) {
        out.reasoningDetails = m.reasoning_details as ReasoningDetail[];
      }
      return out;
    }
  }
}

export function decodeChatRequest(body: ChatCompletionRequestBody): ChatRequest {
  const request: ChatRequest = {
    model: body.model,
    messages: body.messages.map(decodeMessage),
    stream: body.stream === true,
    extra: {},
  };
  if (body.temperature != null) request.temperature = body.temperature;
  if (body.top_p != null) request.topP = body.top_p;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens != null) request.maxTokens = maxTokens;
  if (body.stop != null) request.stop = typeof body.stop === "string" ? [body.stop] : body.stop;
  if (body.n != null) request.n = body.n;
  if (body.tools && body.tools.length > 0) {
    const functions: FunctionTool[] = [];
    const hosted: Array<Record<string, unknown>> = [];
    const marks: NonNullable<ChatRequest["toolBreakpoints"]> = [];
    for (const [i, tool] of body.tools.entries()) {
      if (!(tool.type === "function" && "function" in tool)) {
        hosted.push(tool);
        continue;
      }
      const control = (tool as { cache_control?: CacheControl | null }).cache_control;
      if (control === undefined) {
        functions.push(tool as FunctionTool);
        continue;
      }
      // The definition goes on without the breakpoint; the rebuilding routes place it.
      const { cache_control: _, ...definition } = tool as Record<string, unknown>;
      const cache = breakpointOf(control, `tools[${i}]`);
      if (cache) marks.push({ tool: functions.length, cache });
      functions.push(definition as unknown as FunctionTool);
    }
    if (functions.length > 0) request.tools = functions;
    if (marks.length > 0) request.toolBreakpoints = marks;
    if (hosted.length > 0) request.hostedTools = hosted;
  }
  if (body.tool_choice != null) {
    request.toolChoice = typeof body.tool_choice === "string"
      ? body.tool_choice
      : { type: "function", function: { name: body.tool_choice.function.name } };
  }
  if (body.parallel_tool_calls != null) request.parallelToolCalls = body.parallel_tool_calls;
  if (body.response_format != null) request.responseFormat = body.response_format;
  if (body.reasoning != null) {
    const r = body.reasoning;
    request.reasoning = {
      ...(r.effort === undefined ? {} : { effort: r.effort }),
      ...(r.max_tokens === undefined ? {} : { maxTokens: r.max_tokens }),
      ...(r.exclude === undefined ? {} : { exclude: r.exclude }),
      ...(r.enabled === undefined ? {} : { enabled: r.enabled }),
    };
  }
  // OpenAI's top-level name (official SDKs, LangChain, the AI SDK's `.chat()`, LiteLLM).
  if (body.reasoning_effort != null && request.reasoning?.effort === undefined) {
    request.reasoning = { ...request.reasoning, effort: body.reasoning_effort };
  }
  if (body.user != null) request.user = body.user;
  for (const [key, value] of Object.entries(body)) {
    if (!KNOWN_FIELDS.has(key)) request.extra[key] = value;
  }
  return request;
}
