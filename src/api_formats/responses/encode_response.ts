/**
 * A whole canonical answer → the Responses API `response` object (non-streamed body).
 * Output order: one `reasoning` item (if any reasoning is shown, kept, or needed for a tool
 * loop on a reasoning model), one `message` item, then one `function_call` item per call.
 */
import type { ChatResult } from "../../canonical/chat.ts";
import {
  functionCallItem,
  itemStatusFor,
  messageItem,
  reasoningItem,
  terminalFields,
} from "./output_items.ts";
import { viewReasoning } from "./reasoning_details.ts";
import {
  encodeUsage,
  itemId,
  type OutputItem,
  type ResponseContext,
  type ResponseObject,
  responseShell,
} from "./response_object.ts";

export interface EncodeResponseContext extends ResponseContext {
  /** Unix seconds the answer was complete; omitted when not given. */
  completedAt?: number;
}

export function encodeResponse(result: ChatResult, ctx: EncodeResponseContext): ResponseObject {
  const output: OutputItem[] = [];
  const toolCalls = result.toolCalls ?? [];
  const itemStatus = itemStatusFor(result.finishReason);
  const view = viewReasoning(result.reasoning, result.reasoningDetails ?? [], ctx.excludeReasoning);
  const shown = view.text !== undefined || view.summaries.length > 0 || view.details.length > 0;
  if (shown || (ctx.replayReasoning === true && toolCalls.length > 0)) {
    output.push(reasoningItem(itemId(ctx.id, "rs", output.length), view, itemStatus));
  }
  if (result.content !== null && (result.content !== "" || toolCalls.length === 0)) {
    output.push(messageItem(itemId(ctx.id, "msg", output.length), result.content, itemStatus));
  }
  for (const call of toolCalls) {
    output.push(functionCallItem(
      itemId(ctx.id, "fc", output.length),
      { callId: call.id, name: call.function.name, arguments: call.function.arguments },
      itemStatus,
    ));
  }
  const response = responseShell(ctx, "completed", output);
  Object.assign(response, terminalFields(result.finishReason));
  if (ctx.completedAt !== undefined && response.status === "completed") {
    response.completed_at = ctx.completedAt;
  }
  const usage = encodeUsage(result.usage);
  if (usage !== undefined) response.usage = usage;
  return response;
}
