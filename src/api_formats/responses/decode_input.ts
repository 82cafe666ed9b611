/**
 * Responses `input` (+ `instructions`) → canonical chat messages.
 *
 * A maximal run of `reasoning`, assistant `message` and `function_call` items (up to the next
 * user/system message or `function_call_output`) is one assistant turn: its text, tool calls
 * and reasoning details, in order. This is how a replayed response (`[...response.output]`)
 * becomes the assistant message that produced it.
 */
import type { ChatMessage, ReasoningDetail, TextPart, ToolCall } from "../../canonical/chat.ts";
import { breakpointOf, type CacheControl } from "../../canonical/cache_control_schema.ts";
import { refusedField } from "../../errors.ts";
import type { ResponsesContentPart, ResponsesInputItem } from "./request_schema.ts";
import { unpackReasoning } from "./reasoning_envelope.ts";

interface AssistantTurn {
  content: string | null;
  /** Set once a replayed assistant message carries a cache breakpoint. */
  parts?: TextPart[];
  reasoning: string;
  reasoningDetails: ReasoningDetail[];
  toolCalls: ToolCall[];
}

type ReasoningItem = Extract<ResponsesInputItem, { type: "reasoning" }>;

export interface DecodeInputOptions {
  /**
   * True when this request thinks and shows its reasoning: a replayed tool call needs the
   * reasoning item of its turn (the gateway returned one with every such turn).
   */
  replayReasoning: boolean;
}

export function decodeInput(
  input: string | ResponsesInputItem[],
  instructions: string | null | undefined,
  options: DecodeInputOptions,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (instructions) messages.push({ role: "system", content: instructions });
  if (typeof input === "string") {
    messages.push({ role: "user", content: input, origin: "input" });
    return messages;
  }

  let turn: AssistantTurn | undefined;
  /** Whether the open assistant turn replayed a reasoning item (each turn needs its own). */
  let turnHasReasoning = false;
  const openTurn = (): AssistantTurn =>
    turn ??= { content: null, reasoning: "", reasoningDetails: [], toolCalls: [] };
  const closeTurn = () => {
    if (turn !== undefined) messages.push(assistantMessage(turn));
    turn = undefined;
    turnHasReasoning = false;
  };

  for (const [index, item] of input.entries()) {
    switch (item.type) {
      case undefined:
      case "message": {
        if (item.role === "assistant") {
          const t = openTurn();
          const decoded = decodeParts(item.content, "", `input[${index}]`, item.cache_control);
          if (decoded.parts || t.parts) {
            t.parts = [
              ...(t.parts ?? partsOf(t.content)),
              ...(decoded.parts ?? partsOf(decoded.text)),
            ];
          }
          t.content = t.content === null ? decoded.text : t.content + decoded.text;
          break;
        }
        closeTurn();
        const { text: content, parts } = decodeParts(
          item.content,
          "\n",
          `input[${index}]`,
          item.cache_control,
        );
        const cached = parts ? { parts } : {};
        if (item.role === "user") {
          messages.push({ role: "user", content, origin: `input[${index}]`, ...cached });
        } else {
          messages.push({ role: "system", content, ...cached });
        }
        break;
      }
      case "reasoning": {
        addReasoning(openTurn(), item);
        turnHasReasoning = true;
        break;
      }
      case "function_call": {
        if (options.replayReasoning && !turnHasReasoning) {
          throw refusedField(
            "input",
            `Function call '${item.call_id}' is replayed without its reasoning item; with ` +
              "reasoning on, replay the reasoning output item (its 'encrypted_content' or " +
              "'reasoning_details') before the function_call items it produced. Clients that " +
              "keep reasoning only with 'store: false' (e.g. the Vercel AI SDK) must set it.",
          );
        }
        openTurn().toolCalls.push({
          id: item.call_id,
          type: "function",
          function: { name: item.name, arguments: item.arguments },
        });
        break;
      }
      case "function_call_output": {
        closeTurn();
        const { text: content, parts } = decodeParts(
          item.output,
          "\n",
          `input[${index}]`,
          item.cache_control,
        );
        messages.push({
          role: "tool",
          content,
          toolCallId: item.call_id,
          origin: `input[${index}]`,
          ...(parts ? { parts } : {}),
        });
        break;
      }
      case "item_reference":
        throw refusedField(
          "input",
          "Input items of type 'item_reference' are not supported: the gateway stores " +
            "nothing, so resend every item in full. Clients send references when they assume " +
            "'store: true' (the default of the OpenAI API); set 'store: false' (Vercel AI SDK: " +
            "providerOptions.openai.store = false).",
        );
    }
  }
  closeTurn();
  return messages;
}

function addReasoning(turn: AssistantTurn, item: ReasoningItem): void {
  for (const part of item.content ?? []) turn.reasoning += part.text;
  const packed = item.encrypted_content ? unpackReasoning(item.encrypted_content) : undefined;
  if (item.reasoning_details && item.reasoning_details.length > 0) {
    for (const detail of item.reasoning_details) turn.reasoningDetails.push(toDetail(detail));
  } else if (packed !== undefined) {
    for (const detail of packed) turn.reasoningDetails.push(toDetail(detail));
  } else if (item.encrypted_content) {
    turn.reasoningDetails.push({
      type: "reasoning.encrypted",
      data: item.encrypted_content,
      ...(item.id ? { id: item.id } : {}),
    });
  }
}

/** Copies a validated detail into the canonical union (drops unknown extra keys). */
function toDetail(
  d: NonNullable<ReasoningItem["reasoning_details"]>[number],
): ReasoningDetail {
  const common = {
    ...(d.id !== undefined ? { id: d.id } : {}),
    ...(d.format !== undefined ? { format: d.format } : {}),
    ...(d.index !== undefined ? { index: d.index } : {}),
  };
  switch (d.type) {
    case "reasoning.text":
      return {
        type: d.type,
        ...(d.text !== undefined ? { text: d.text } : {}),
        ...(d.signature !== undefined ? { signature: d.signature } : {}),
        ...common,
      };
    case "reasoning.summary":
      return { type: d.type, summary: d.summary, ...common };
    case "reasoning.encrypted":
      return { type: d.type, data: d.data, ...common };
  }
}

function assistantMessage(turn: AssistantTurn): ChatMessage {
  return {
    role: "assistant",
    content: turn.content,
    ...(turn.parts ? { parts: turn.parts } : {}),
    ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}),
    ...(turn.reasoning !== "" ? { reasoning: turn.reasoning } : {}),
    ...(turn.reasoningDetails.length > 0 ? { reasoningDetails: turn.reasoningDetails } : {}),
  };
}

/** A text as a single uncached part (joining a turn whose later message is cached). */
function partsOf(text: string | null): TextPart[] {
  return text === null || text === "" ? [] : [{ text }];
}

/**
 * The text of a message's content (parts joined by `separator`), and its parts when a cache
 * breakpoint sits on one of them or on the item (then at its end); image and file parts are
 * refused. Each part but the last keeps its separator, so the parts join to the text.
 */
function decodeParts(
  content: string | ResponsesContentPart[],
  separator: string,
  at: string,
  itemCache: CacheControl | null | undefined,
): { text: string; parts?: TextPart[] } {
  const onItem = breakpointOf(itemCache, at);
  if (typeof content === "string") {
    return onItem
      ? { text: content, parts: [{ text: content, cache: onItem }] }
      : { text: content };
  }
  const parts: TextPart[] = [];
  let cached = false;
  for (const [j, part] of content.entries()) {
    switch (part.type) {
      case "input_text":
      case "output_text": {
        const cache = breakpointOf(
          (part as { cache_control?: CacheControl | null }).cache_control,
          `${at}.content[${j}]`,
        );
        cached ||= cache !== undefined;
        parts.push(cache ? { text: part.text, cache } : { text: part.text });
        break;
      }
      case "refusal":
        parts.push({ text: part.refusal });
        break;
      case "input_image":
      case "input_file":
        throw refusedField(
          "input",
          `Content parts of type '${part.type}' are not supported; input items carry text only.`,
        );
    }
  }
  const text = parts.map((p) => p.text).join(separator);
  if (onItem) {
    const last = parts.at(-1);
    if (last) last.cache = onItem;
    else parts.push({ text: "", cache: onItem });
    cached = true;
  }
  if (!cached) return { text };
  for (let i = 0; i < parts.length - 1; i++) parts[i]!.text += separator;
  return { text, parts };
}
