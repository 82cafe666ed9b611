/**
 * The Responses body fields the gateway neither translates nor honours, named for
 * `x-sovra-dropped-params` so that nothing is lost silently. Null values count as absent (the
 * SDKs send them for defaults); values that ask for what the gateway does anyway
 * (`truncation: "disabled"`, `include: ["reasoning.encrypted_content"]`) are honoured.
 */
import type { ResponsesRequest } from "./request_schema.ts";

/** Top-level fields that are translated, echoed or refused by the decoder. */
const HANDLED = new Set([
  "model",
  "input",
  "instructions",
  "max_output_tokens",
  "reasoning",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "stream",
  "user",
  "metadata",
  "store",
  "previous_response_id",
  "text",
  "include",
  "truncation",
  "prompt_cache_key",
]);
const REASONING_FIELDS = new Set(["effort", "max_tokens", "exclude", "enabled", "summary"]);

export function ignoredFields(body: ResponsesRequest, textFormatIgnored: boolean): string[] {
  const ignored: string[] = [];
  const record = body as Record<string, unknown>;
  for (const [name, value] of Object.entries(record)) {
    if (!HANDLED.has(name) && value !== null && value !== undefined) ignored.push(name);
  }
  for (const [name, value] of Object.entries(body.reasoning ?? {})) {
    if (!REASONING_FIELDS.has(name) && value != null) ignored.push(`reasoning.${name}`);
  }
  for (const [name, value] of Object.entries(body.text ?? {})) {
    if (name !== "format" && value != null) ignored.push(`text.${name}`);
  }
  if (textFormatIgnored) ignored.push("text.format");
  const include = record.include;
  if (Array.isArray(include) && include.some((i) => i !== "reasoning.encrypted_content")) {
    ignored.push("include");
  }
  const truncation = record.truncation;
  if (truncation != null && truncation !== "disabled") ignored.push("truncation");
  return ignored;
}

/** Rule-1 drops in the Responses API's own names. */
export function responsesParamName(chatName: string): string {
  switch (chatName) {
    case "max_tokens":
      return "max_output_tokens";
    case "response_format":
      return "text.format";
    default:
      return chatName;
  }
}
