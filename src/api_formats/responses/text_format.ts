/**
 * Responses `text.format` → the chat `response_format` it means, so structured output (the
 * SDKs' `responses.parse`) works wherever the route forwards `response_format`:
 * `json_schema` is flat in the Responses API and nested under `json_schema` in chat.
 * `{type: "text"}` is the default and needs nothing; an unknown type is ignored (and named in
 * `x-sovra-dropped-params`).
 */
import { invalidRequest } from "../../errors.ts";

export type TextFormatResult =
  | { kind: "none" }
  | { kind: "ignored" }
  | { kind: "translated"; responseFormat: Record<string, unknown> };

export function translateTextFormat(format: unknown): TextFormatResult {
  if (format === undefined || format === null) return { kind: "none" };
  if (!isRecord(format)) {
    throw invalidRequest("Invalid field 'text.format': expected an object.", "text");
  }
  switch (format.type) {
    case "text":
      return { kind: "none" };
    case "json_object":
      return { kind: "translated", responseFormat: { type: "json_object" } };
    case "json_schema": {
      const { name, schema, strict, description } = format;
      if (typeof name !== "string" || name === "" || !isRecord(schema)) {
        throw invalidRequest(
          "Invalid field 'text.format': a 'json_schema' format needs a 'name' and a 'schema' object.",
          "text",
        );
      }
      const jsonSchema: Record<string, unknown> = { name, schema };
      if (typeof strict === "boolean") jsonSchema.strict = strict;
      if (typeof description === "string") jsonSchema.description = description;
      return {
        kind: "translated",
        responseFormat: { type: "json_schema", json_schema: jsonSchema },
      };
    }
    default:
      return { kind: "ignored" };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
