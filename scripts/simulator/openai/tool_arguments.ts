/**
 * Deterministic tool-call arguments built from a JSON schema: one value per required property
 * (`{"location":"Paris"}` style), and the fragment split OpenAI streams them in.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const MAX_DEPTH = 5;

/** A value that satisfies the simple cases of `schema` (enum, const, type, required). */
export function valueFromSchema(schema: unknown, depth = 0): Json {
  if (!isRecord(schema) || depth > MAX_DEPTH) return "Paris";
  if ("const" in schema) return toJson(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return toJson(schema.enum[0]);
  for (const union of ["anyOf", "oneOf", "allOf"]) {
    const options = schema[union];
    if (Array.isArray(options) && options.length > 0) {
      return valueFromSchema(options[0], depth + 1);
    }
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object":
      return objectFromSchema(schema, depth);
    case "array":
      return [];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    case "string":
      return stringFor(schema.format);
    default:
      return isRecord(schema.properties) ? objectFromSchema(schema, depth) : stringFor(undefined);
  }
}

/** Arguments object for a tool's `parameters` schema (`{}` when it has none). */
export function argumentsFromSchema(parameters: unknown): string {
  const value = isRecord(parameters) ? objectFromSchema(parameters, 0) : {};
  return JSON.stringify(value);
}

/**
 * Splits serialized arguments the way OpenAI's token stream does: runs of word characters
 * alternate with runs of punctuation (`{"`, `location`, `":"`, `Paris`, `"}`).
 */
export function splitArguments(json: string): string[] {
  return json.match(/[A-Za-z0-9_]+|[^A-Za-z0-9_]+/g) ?? [json];
}

function objectFromSchema(schema: Record<string, unknown>, depth: number): { [key: string]: Json } {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === "string")
    : [];
  const out: { [key: string]: Json } = {};
  for (const key of required) out[key] = valueFromSchema(properties[key], depth + 1);
  return out;
}

function stringFor(format: unknown): string {
  switch (format) {
    case "date":
      return "2025-01-01";
    case "date-time":
      return "2025-01-01T12:00:00Z";
    case "email":
      return "someone@example.com";
    case "uri":
    case "url":
      return "https://example.com/";
    default:
      return "Paris";
  }
}

function toJson(value: unknown): Json {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
