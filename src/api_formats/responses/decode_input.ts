/**
 * Responses `input` (+ `instructions`) → canonical chat messages.
 *
 * A maximal run of `reasoning`, assistant `message` and `function_call` items (up to the next
 * user/system message or `function_call_output`) is one assistant turn: its text, tool calls
 * and reasoning details, in order. This is how a replayed response (`[...response.output]`)
 * becomes the assistant message that produced it.
 */
import type { ChatMessage, ReasoningDetail, ToolCall } from "../../canonical/chat.ts";
import { refusedField } from "../../errors.ts";
import type { ResponsesContentPart, ResponsesInputItem } from "./request_schema.ts";
import { unpackReasoning } from "./reasoning_envelope.ts";

interface AssistantTurn {
  content: string | null;
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
          const text = partsText(item.content, "");
          t.content = t.content === null ? text : t.content + text;
          break;
        }
        closeTurn();
        const content = partsText(item.content, "\n");
        if (item.role === "user") {
          messages.push({ role: "user", content, origin: `input[${index}]` });
        } else {
          messages.push({ role: "system", content });
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
        const content = typeof item.output === "string"
          ? item.output
          : partsText(item.output, "\n");
        messages.push({
          role: "tool",
          content,
          toolCallId: item.call_id,
          origin: `input[${index}]`,
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
    ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}),
    ...(turn.reasoning !== "" ? { reasoning: turn.reasoning } : {}),
    ...(turn.reasoningDetails.length > 0 ? { reasoningDetails: turn.reasoningDetails } : {}),
  };
}

/** The text of a message's content; image and file parts are refused. */
function partsText(content: string | ResponsesContentPart[], separator: string): string {
  if (typeof content === "string") return content;
  const texts: string[] = [];
  for (const part of content) {
    switch (part.type) {
      case "input_text":
      case "output_text":
        texts.push(part.text);
        break;
      case "refusal":
        texts.push(part.refusal);
        break;
      case "input_image":
      case "input_file":
        throw refusedField(
          "input",
          `Content parts of type '${part.type}' are not supported; input items carry text only.`,
        );
    }
  }
  return texts.join(separator);
}
