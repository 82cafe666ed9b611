/**
 * A provider's request schema as data (`catalog/provider_schemas/*.json`, named by a provider's
 * `request_schema`): per endpoint, the fields the provider's published schema or reference
 * accepts, the message fields per role, the names it gives a field differently, and what it does
 * with a field outside the list. Adapters send nothing outside it; the simulators enforce it the
 * way the provider does; `admin catalog check` reads it. Each extract names its source and date.
 */
import { z } from "zod";

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD");

/** Where an extract was read: the document, its date (when it has one) and when it was read. */
export const SchemaSource = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** The part of the document read, e.g. `components.schemas.ChatCompletionRequest`. */
  section: z.string().optional(),
  /** The document's own date or revision date, when it states one. */
  published: isoDate.optional(),
  /** When Sovra's team read it. */
  retrieved: isoDate,
  /** `provider` (its own schema or reference) or `third-party` (client code, a mirror …). */
  kind: z.enum(["provider", "third-party", "inferred"]).default("provider"),
});
export type SchemaSource = z.output<typeof SchemaSource>;

/**
 * What the provider does with a field outside `fields`: `reject` (an error answer, e.g.
 * Mistral's 422 `extra_forbidden`), `ignore` (documented or schema-declared as accepted and
 * unused), `unknown` (not documented). Sovra never sends such a field, whatever the value.
 */
export const UnknownFields = z.enum(["reject", "ignore", "unknown"]);
export type UnknownFields = z.output<typeof UnknownFields>;

export const MessageRole = z.enum(["system", "user", "assistant", "tool"]);
export type MessageRole = z.output<typeof MessageRole>;

const fieldName = z.string().min(1);

export const EndpointSchema = z.strictObject({
  $comment: z.string().optional(),
  sources: z.array(SchemaSource).min(1),
  unknown_fields: UnknownFields,
  /** The top-level fields of the body (multipart parts for transcription), provider-named. */
  fields: z.array(fieldName).min(1),
  /** The name Sovra's OpenAI-style body uses → the provider's name (`seed` → `random_seed`). */
  rename: z.record(fieldName, fieldName).default({}),
  /** Values a field accepts, where the provider lists them (enums). */
  values: z.record(fieldName, z.array(z.union([z.string(), z.number(), z.boolean()])).min(1))
    .default({}),
  /** Per message role, the fields a message may carry (chat only). */
  messages: z.partialRecord(MessageRole, z.array(fieldName).min(1)).optional(),
  /**
   * Chat streams: `always` — usage arrives in the last chunk without asking (Mistral), so no
   * `stream_options` is needed; `on_request` — only when `stream_options.include_usage` is sent.
   */
  stream_usage: z.enum(["always", "on_request"]).default("on_request"),
});
export type EndpointSchema = z.output<typeof EndpointSchema>;

export const SchemaEndpoint = z.enum([
  "chat",
  "embeddings",
  "transcription",
  "speech",
  "moderation",
]);
export type SchemaEndpoint = z.output<typeof SchemaEndpoint>;

export const ProviderRequestSchema = z.strictObject({
  $schema: z.string().optional(),
  $comment: z.string().optional(),
  version: z.literal(1),
  /**
   * How the provider answers a rejected field (with `unknown_fields: reject`): the status and
   * the body's shape, so the simulators answer as it does.
   */
  rejection: z.strictObject({
    status: z.number().int().min(400).max(499),
    shape: z.enum(["mistral", "openai", "anthropic", "bedrock"]),
  }).optional(),
  endpoints: z.partialRecord(SchemaEndpoint, EndpointSchema),
});
export type ProviderRequestSchema = z.output<typeof ProviderRequestSchema>;

/** The provider's name for a field Sovra's body calls `name` (its `rename`, else the same). */
export function providerFieldName(endpoint: EndpointSchema, name: string): string {
  return Object.hasOwn(endpoint.rename, name) ? endpoint.rename[name]! : name;
}

/** Whether the endpoint accepts the field Sovra calls `name` (under the provider's name). */
export function acceptsField(endpoint: EndpointSchema, name: string): boolean {
  return endpoint.fields.includes(providerFieldName(endpoint, name));
}

/** Whether a message of `role` may carry `field` (no `messages` table: any field). */
export function acceptsMessageField(
  endpoint: EndpointSchema,
  role: MessageRole,
  field: string,
): boolean {
  const allowed = endpoint.messages?.[role];
  return allowed === undefined || allowed.includes(field);
}

/** Whether `value` is one the endpoint lists for `field` (no list: any value). */
export function acceptsValue(endpoint: EndpointSchema, field: string, value: unknown): boolean {
  const allowed = endpoint.values[providerFieldName(endpoint, field)];
  return allowed === undefined ||
    allowed.some((v) => v === value);
}
