/**
 * Validation of `POST /v1/chat/completions` bodies, as strict as a real provider where it
 * matters (roles, required fields, the tool loop) and tolerant everywhere else.
 */

import { z } from "zod";

const ContentPart = z.looseObject({ type: z.string(), text: z.string().nullish() });
const Content = z.union([z.string(), z.array(ContentPart)]);

const ToolCall = z.looseObject({
  id: z.string(),
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: z.unknown() }),
});

const Message = z.discriminatedUnion("role", [
  z.looseObject({ role: z.enum(["system", "developer", "user"]), content: Content }),
  z.looseObject({
    role: z.literal("assistant"),
    content: Content.nullish(),
    tool_calls: z.array(ToolCall).nullish(),
  }),
  z.looseObject({ role: z.literal("tool"), content: Content, tool_call_id: z.string() }),
]);

const Tool = z.looseObject({
  type: z.string(),
  function: z.looseObject({ name: z.string(), parameters: z.unknown() }),
});

const ToolChoice = z.union([
  z.enum(["none", "auto", "required", "any"]),
  z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }).nullish() }),
]);

export const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: z.number().int().min(0).nullish(),
  max_completion_tokens: z.number().int().min(0).nullish(),
  tools: z.array(Tool).nullish(),
  tool_choice: ToolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  /** The form vLLM-based EU providers and Mistral take. */
  reasoning_effort: z.string().nullish(),
  reasoning: z.looseObject({
    effort: z.string().nullish(),
    max_tokens: z.number().nullish(),
    exclude: z.boolean().nullish(),
    enabled: z.boolean().nullish(),
  }).nullish(),
  response_format: z.looseObject({
    type: z.string(),
    json_schema: z.looseObject({ schema: z.unknown() }).nullish(),
  }).nullish(),
});

export type ChatRequest = z.infer<typeof ChatRequest>;
export type ChatMessage = z.infer<typeof Message>;

export type Validated =
  | { readonly ok: true; readonly request: ChatRequest }
  | { readonly ok: false; readonly message: string; readonly param: string | undefined };

export function validateChatRequest(body: unknown): Validated {
  const parsed = ChatRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue === undefined ? undefined : formatPath(issue.path);
    const detail = issue?.message ?? "invalid body";
    return { ok: false, message: `Invalid '${param ?? "body"}': ${detail}.`, param };
  }
  const request = parsed.data;
  if (request.stream_options != null && request.stream !== true) {
    return fail(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      "stream_options",
    );
  }
  const loop = checkToolLoop(request.messages);
  if (loop !== undefined) return loop;
  const choice = request.tool_choice;
  if (typeof choice === "object" && choice !== null && choice.function != null) {
    const name = choice.function.name;
    if (!(request.tools ?? []).some((t) => t.function.name === name)) {
      return fail(
        `Invalid value for 'tool_choice': function '${name}' not found in 'tools'.`,
        "tool_choice",
      );
    }
  }
  return { ok: true, request };
}

/**
 * Every `tool` message must answer a `tool_calls[].id` of the assistant turn before it, and
 * every such id must be answered before the conversation moves on (OpenAI's rule).
 */
function checkToolLoop(messages: readonly ChatMessage[]): Validated | undefined {
  let open: Set<string> | undefined;
  let answered = new Set<string>();
  for (const [i, message] of messages.entries()) {
    if (message.role === "tool") {
      if (open === undefined) {
        return fail(
          "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      if (!open.has(message.tool_call_id)) {
        return fail(
          `Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`,
          `messages.[${i}].tool_call_id`,
        );
      }
      answered.add(message.tool_call_id);
      continue;
    }
    const missing = unanswered(open, answered);
    if (missing !== undefined) return missing;
    open =
      message.role === "assistant" && message.tool_calls != null && message.tool_calls.length > 0
        ? new Set(message.tool_calls.map((c) => c.id))
        : undefined;
    answered = new Set();
  }
  return unanswered(open, answered);
}

function unanswered(open: Set<string> | undefined, answered: Set<string>): Validated | undefined {
  if (open === undefined) return undefined;
  const missing = [...open].filter((id) => !answered.has(id));
  if (missing.length === 0) return undefined;
  return fail(
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each " +
      `'tool_call_id'. The following tool_call_ids did not have response messages: ${
        missing.join(", ")
      }`,
    "messages",
  );
}

/** Concatenated text of a message's content (strings and text parts). */
export function textOf(content: ChatMessage["content"]): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  let text = "";
  for (const part of content) if (typeof part.text === "string") text += part.text + " ";
  return text;
}

function fail(message: string, param: string): Validated {
  return { ok: false, message, param };
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    out += typeof key === "number" ? `[${key}]` : `${out === "" ? "" : "."}${String(key)}`;
  }
  return out === "" ? "body" : out;
}
