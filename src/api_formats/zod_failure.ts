/**
 * Turns the first zod issue of a client body into the spec's 400: `invalid_request` with the
 * field as `param`, or a named-field refusal for fields listed in `refused`. Messages name
 * the field, never echo the value.
 */
import type { z } from "zod";
import { GatewayError, invalidRequest, refusedField } from "../errors.ts";

export function zodFailure(
  error: z.ZodError,
  options: { refused?: readonly string[]; messages?: Record<string, string> } = {},
): GatewayError {
  const issue = error.issues[0];
  if (issue === undefined) return invalidRequest("The request body is malformed.");
  if (issue.path.length === 0) {
    return invalidRequest("The request body must be a JSON object.");
  }
  const field = issue.path.map(String).join(".");
  const top = String(issue.path[0]);
  const custom = options.messages?.[top];
  if (options.refused?.includes(top)) {
    return refusedField(top, custom ?? invalidMessage(field, issue));
  }
  if (issue.code === "invalid_type" && isMissing(issue)) {
    return invalidRequest(`Missing required field '${field}'.`, top);
  }
  return invalidRequest(custom ?? invalidMessage(field, issue), top);
}

function isMissing(issue: z.core.$ZodIssue): boolean {
  return issue.message.endsWith("received undefined");
}

function invalidMessage(field: string, issue: z.core.$ZodIssue): string {
  return `Invalid field '${field}': ${lowerFirst(issue.message)}.`;
}

function lowerFirst(text: string): string {
  return text.length === 0 ? text : text[0]!.toLowerCase() + text.slice(1);
}
