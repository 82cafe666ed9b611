/** Builders for output items and terminal fields, shared by the JSON and the stream encoder. */
import type { FinishReason } from "../../canonical/chat.ts";
import { UpstreamFailure } from "../../providers/upstream_failure.ts";
import type { ReasoningView } from "./reasoning_details.ts";
import { packReasoning } from "./reasoning_envelope.ts";
import type {
  FunctionCallOutputItem,
  ItemStatus,
  MessageOutputItem,
  ReasoningOutputItem,
  ResponseErrorBody,
  ResponseObject,
} from "./response_object.ts";

export function reasoningItem(
  id: string,
  view: ReasoningView,
  status: ItemStatus,
): ReasoningOutputItem {
  return {
    type: "reasoning",
    id,
    summary: view.summaries.map((text) => ({ type: "summary_text", text })),
    ...(view.text === undefined ? {} : { content: [{ type: "reasoning_text", text: view.text }] }),
    encrypted_content: packReasoning(view.details),
    reasoning_details: view.details,
    status,
  };
}

export function messageItem(id: string, text: string, status: ItemStatus): MessageOutputItem {
  return {
    type: "message",
    id,
    role: "assistant",
    status,
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

export function functionCallItem(
  id: string,
  call: { callId: string; name: string; arguments: string },
  status: ItemStatus,
): FunctionCallOutputItem {
  return {
    type: "function_call",
    id,
    call_id: call.callId,
    name: call.name,
    arguments: call.arguments,
    status,
  };
}

type TerminalFields = Pick<ResponseObject, "status" | "incomplete_details" | "error">;

/** `status`, `incomplete_details` and `error` for a canonical finish reason. */
export function terminalFields(reason: FinishReason): TerminalFields {
  switch (reason) {
    case "stop":
    case "tool_calls":
    case "other":
      return { status: "completed", incomplete_details: null, error: null };
    case "length":
      return {
        status: "incomplete",
        incomplete_details: { reason: "max_output_tokens" },
        error: null,
      };
    case "content_filter":
      return {
        status: "incomplete",
        incomplete_details: { reason: "content_filter" },
        error: null,
      };
    case "error":
      return {
        status: "failed",
        incomplete_details: null,
        error: { code: "server_error", message: "The model stopped with an error." },
      };
  }
}

/** The status of items that ended with the response. */
export function itemStatusFor(reason: FinishReason): ItemStatus {
  return reason === "stop" || reason === "tool_calls" || reason === "other"
    ? "completed"
    : "incomplete";
}

/** The client-facing error of `response.failed`: a code and a fixed message, no internals. */
export function failureError(error: unknown): ResponseErrorBody {
  if (error instanceof UpstreamFailure && error.kind === "rate_limited") {
    return { code: "rate_limit_exceeded", message: "The provider throttled the generation." };
  }
  return { code: "server_error", message: "The generation broke off; the answer is incomplete." };
}
