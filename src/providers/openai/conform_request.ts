/**
 * The `openai` dialect against its provider's request schema (`ResolvedRoute.requestSchema`):
 * before any call, a chat request loses what the provider's chat schema does not take — a
 * parameter, a client field passed through, a message field of a role — and the names are
 * reported (`x-sovra-dropped-params`); at send time every body (chat, embeddings, speech,
 * transcription) is renamed to the provider's names and keeps only its fields, so nothing outside
 * the schema ever leaves the gateway. Without a schema nothing changes here.
 */
import type { ChatMessage, ChatRequest } from "../../canonical/chat.ts";
import type { ResolvedRoute } from "../../catalog/resolved_route.ts";
import {
  acceptsField,
  acceptsMessageField,
  type EndpointSchema,
  type MessageRole,
  providerFieldName,
  type SchemaEndpoint,
} from "../../catalog/provider_schema.ts";

/** The canonical fields the `openai` body carries, by the wire name `convert_request.ts` gives them. */
export const WIRE_FIELDS = [
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["maxTokens", "max_tokens"],
  ["stop", "stop"],
  ["n", "n"],
  ["tools", "tools"],
  ["toolChoice", "tool_choice"],
  ["parallelToolCalls", "parallel_tool_calls"],
  ["responseFormat", "response_format"],
  ["reasoning", "reasoning_effort"],
  ["user", "user"],
] as const satisfies ReadonlyArray<readonly [keyof ChatRequest, string]>;

/** The client's name of a canonical field, as `x-sovra-dropped-params` reports it. */
const CLIENT_NAME: Partial<Record<keyof ChatRequest, string>> = { reasoning: "reasoning" };

/** The endpoint schema of this route's provider, if it has one. */
export function endpointSchema(
  route: ResolvedRoute,
  endpoint: SchemaEndpoint,
): EndpointSchema | undefined {
  return route.requestSchema?.endpoints[endpoint];
}

/** The chat request as this route's provider takes it, and what was removed (rule 1). */
export function conformChatRequest(
  request: ChatRequest,
  route: ResolvedRoute,
): { request: ChatRequest; dropped: string[] } {
  const schema = endpointSchema(route, "chat");
  if (schema === undefined) return { request, dropped: [] };
  const dropped: string[] = [];
  let out: ChatRequest | undefined;
  for (const [field, wire] of WIRE_FIELDS) {
    if (request[field] === undefined || acceptsField(schema, wire)) continue;
    // Hosted tools travel in `tools` too.
    out ??= { ...request };
    delete out[field];
    if (field === "tools") delete out.hostedTools;
    // `user` is the end-user id, kept for the metadata: not reported, as rule 1 does.
    if (field === "user") continue;
    if (field === "n" && (request.n ?? 1) <= 1) continue;
    dropped.push(CLIENT_NAME[field] ?? wire);
  }
  if (request.hostedTools !== undefined && !acceptsField(schema, "tools") && !out) {
    out = { ...request };
    delete out.hostedTools;
    dropped.push("tools");
  }
  let extra: Record<string, unknown> | undefined;
  for (const name in request.extra) {
    if (!Object.hasOwn(request.extra, name) || acceptsField(schema, name)) continue;
    extra ??= { ...request.extra };
    delete extra[name];
    const value = request.extra[name];
    if (value !== undefined && value !== null) dropped.push(name);
  }
  if (extra !== undefined) (out ??= { ...request }).extra = extra;
  const messages = conformMessages(request.messages, schema, dropped);
  if (messages !== request.messages) (out ??= { ...request }).messages = messages;
  return { request: out ?? request, dropped };
}

/** The optional message fields the `openai` body carries per role (see `convertMessage`). */
const MESSAGE_FIELDS: ReadonlyArray<
  readonly [MessageRole, string, (m: ChatMessage) => boolean, (m: ChatMessage) => ChatMessage]
> = [
  ["system", "name", (m) => m.role === "system" && m.name !== undefined, withoutName],
  ["user", "name", (m) => m.role === "user" && m.name !== undefined, withoutName],
  [
    "assistant",
    "reasoning_details",
    (m) => m.role === "assistant" && m.reasoningDetails !== undefined,
    (m) => {
      const { reasoningDetails: _, ...rest } = m as Extract<ChatMessage, { role: "assistant" }>;
      return rest;
    },
  ],
];

function withoutName(m: ChatMessage): ChatMessage {
  const { name: _, ...rest } = m as Extract<ChatMessage, { role: "system" | "user" }>;
  return rest as ChatMessage;
}

function conformMessages(
  messages: ChatMessage[],
  schema: EndpointSchema,
  dropped: string[],
): ChatMessage[] {
  let out: ChatMessage[] | undefined;
  for (const [role, field, has, strip] of MESSAGE_FIELDS) {
    if (acceptsMessageField(schema, role, field)) continue;
    let removed = false;
    for (let i = 0; i < messages.length; i++) {
      const message = (out ?? messages)[i]!;
      if (!has(message)) continue;
      out ??= [...messages];
      out[i] = strip(message);
      removed = true;
    }
    if (removed && !dropped.includes(`messages[].${field}`)) dropped.push(`messages[].${field}`);
  }
  return out ?? messages;
}

/**
 * The body as the provider names and takes it: renamed (`seed` → `random_seed`), without any
 * top-level field or message field outside its schema. `dropped` collects the body's names of
 * what was removed. Without a schema the body is returned as it is.
 */
export function shapeBody(
  body: Record<string, unknown>,
  schema: EndpointSchema | undefined,
  dropped: string[] = [],
): Record<string, unknown> {
  if (schema === undefined) return body;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    const own = providerFieldName(schema, name);
    if (schema.fields.includes(own)) out[own] = value;
    else dropped.push(name);
  }
  if (Array.isArray(out.messages) && schema.messages !== undefined) {
    out.messages = out.messages.map((m: Record<string, unknown>) => {
      const allowed = schema.messages?.[m.role as MessageRole];
      // The plan removed what a role does not take: a message is copied only if it still holds some.
      if (allowed === undefined || Object.keys(m).every((k) => allowed.includes(k))) return m;
      const kept: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(m)) if (allowed.includes(k)) kept[k] = v;
      return kept;
    });
  }
  return out;
}

/**
 * Whether a stream on this route asks for usage with `stream_options`: not where the provider
 * sends it unasked (`stream_usage: always`) or its schema has no such field.
 */
export function asksStreamUsage(route: ResolvedRoute): boolean {
  const schema = endpointSchema(route, "chat");
  if (schema === undefined) {
    return !route.provider.unsupported_parameters.includes("stream_options");
  }
  return schema.stream_usage !== "always" && schema.fields.includes("stream_options");
}
