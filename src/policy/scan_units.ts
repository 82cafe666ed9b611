/**
 * What the guardrail reads of a chat-kind request: the text that reaches the model from
 * outside the developer's own instructions. User messages (channel `user`) and tool results
 * (`role: tool`, Responses `function_call_output`: channel `tool`); not system/developer
 * messages, not assistant turns. The canonical request holds text only, so audio, images and
 * files are never scanned. Paths name the client's own indices (`messages[i]`, or the
 * Responses `input[i]` the decoder recorded).
 */
import type { ChatMessage } from "../canonical/chat.ts";
import type { ScanUnit } from "../guardrail/scanner.ts";

export function scanUnits(messages: readonly ChatMessage[]): ScanUnit[] {
  const units: ScanUnit[] = [];
  messages.forEach((message, index) => {
    if (message.role !== "user" && message.role !== "tool") return;
    units.push({
      path: message.origin ?? `messages[${index}]`,
      role: message.role,
      channel: message.role === "tool" ? "tool" : "user",
      text: message.content,
    });
  });
  return units;
}
