/**
 * The simulators' side of the provider request schemas (`catalog/provider_schemas/*.json`, the
 * data the adapters shape requests by): a body is checked against its provider's endpoint
 * schema, and a field outside it is answered the way that provider answers it — Mistral's 422
 * `extra_forbidden`, Anthropic's 400 — or, where the provider ignores such fields (or nobody
 * knows), left unused. Every such field is recorded as a violation either way, so a test can
 * assert that Sovra sent none.
 */
import {
  type EndpointSchema,
  type MessageRole,
  ProviderRequestSchema,
  type SchemaEndpoint,
} from "../../src/catalog/provider_schema.ts";

export interface Violation {
  /** Which schema, endpoint and simulator saw it. */
  profile: string;
  endpoint: SchemaEndpoint;
  /** Path in the body, pydantic-style: `["body", "messages", 0, "user", "name"]`. */
  loc: Array<string | number>;
  type: "extra_forbidden" | "enum";
  input: unknown;
  allowed?: ReadonlyArray<string | number | boolean>;
}

const ROLES: ReadonlySet<string> = new Set(["system", "user", "assistant", "tool"]);

/** The committed schemas, by file stem (`mistral` for `mistral.json`). */
export function loadSchemaDir(
  dir = new URL("../../catalog/provider_schemas/", import.meta.url),
): Map<string, ProviderRequestSchema> {
  const schemas = new Map<string, ProviderRequestSchema>();
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    const text = Deno.readTextFileSync(new URL(entry.name, dir));
    schemas.set(entry.name.slice(0, -5), ProviderRequestSchema.parse(JSON.parse(text)));
  }
  return schemas;
}

/** Fields of `body` (and of its messages) outside the endpoint's schema, and values it does not list. */
export function violationsOf(
  profile: string,
  endpoint: SchemaEndpoint,
  schema: EndpointSchema,
  body: Readonly<Record<string, unknown>>,
): Violation[] {
  const out: Violation[] = [];
  const add = (v: Omit<Violation, "profile" | "endpoint">) => out.push({ profile, endpoint, ...v });
  for (const [field, value] of Object.entries(body)) {
    if (!schema.fields.includes(field)) {
      add({ loc: ["body", field], type: "extra_forbidden", input: value });
      continue;
    }
    const allowed = schema.values[field];
    if (allowed !== undefined && !allowed.some((v) => v === value)) {
      add({ loc: ["body", field], type: "enum", input: value, allowed });
    }
  }
  const messages = body.messages;
  if (schema.messages !== undefined && Array.isArray(messages)) {
    messages.forEach((message, i) => {
      if (typeof message !== "object" || message === null) return;
      const role = (message as { role?: unknown }).role;
      const allowed = typeof role === "string" && ROLES.has(role)
        ? schema.messages?.[role as MessageRole]
        : undefined;
      if (allowed === undefined) {
        add({ loc: ["body", "messages", i, "role"], type: "enum", input: role });
        return;
      }
      for (const [field, value] of Object.entries(message)) {
        if (!allowed.includes(field)) {
          add({
            loc: ["body", "messages", i, String(role), field],
            type: "extra_forbidden",
            input: value,
          });
        }
      }
    });
  }
  return out;
}

/** `body` without the fields of `violations` (what a provider that ignores them goes on with). */
export function withoutViolations(
  body: Readonly<Record<string, unknown>>,
  violations: readonly Violation[],
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...body };
  let messages: unknown[] | undefined;
  for (const v of violations) {
    if (v.type !== "extra_forbidden") continue;
    if (v.loc.length === 2) {
      delete copy[v.loc[1] as string];
    } else if (v.loc[1] === "messages" && Array.isArray(body.messages)) {
      messages ??= [...body.messages];
      const i = v.loc[2] as number;
      const message = { ...(messages[i] as Record<string, unknown>) };
      delete message[v.loc[4] as string];
      messages[i] = message;
    }
  }
  if (messages !== undefined) copy.messages = messages;
  return copy;
}

/** The body with the provider's names turned back into the OpenAI names the handlers read. */
export function withOpenAiNames(
  schema: EndpointSchema,
  body: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...body };
  for (const [openai, own] of Object.entries(schema.rename)) {
    if (Object.hasOwn(copy, own)) {
      copy[openai] = copy[own];
      delete copy[own];
    }
  }
  return copy;
}

/** The provider's answer to a rejected body (`rejection` of its schema). */
export function rejectionResponse(
  schema: ProviderRequestSchema,
  violations: readonly Violation[],
  requestId: string,
): Response {
  const rejection = schema.rejection ?? { status: 400, shape: "openai" as const };
  const first = violations[0]!;
  const field = first.loc.slice(1).join(".");
  const text = first.type === "extra_forbidden"
    ? "Extra inputs are not permitted"
    : `Input should be ${(first.allowed ?? []).map((v) => `'${v}'`).join(" or ")}`;
  let body: unknown;
  switch (rejection.shape) {
    case "mistral":
      // FastAPI's validation detail inside Mistral's top-level error object.
      body = {
        object: "error",
        message: {
          detail: violations.map((v) => ({
            type: v.type,
            loc: v.loc,
            msg: v.type === "extra_forbidden"
              ? "Extra inputs are not permitted"
              : `Input should be ${(v.allowed ?? []).map((a) => `'${a}'`).join(" or ")}`,
            input: v.input,
          })),
        },
        type: "invalid_request_error",
        param: null,
        code: null,
      };
      break;
    case "anthropic":
      body = {
        type: "error",
        error: { type: "invalid_request_error", message: `${field}: ${text}` },
        request_id: requestId,
      };
      break;
    case "bedrock":
      body = { message: `Malformed input request: ${field}: ${text}` };
      break;
    case "openai":
      body = {
        error: {
          message: `Unrecognized request argument supplied: ${field}`,
          type: "invalid_request_error",
          param: field,
          code: null,
        },
      };
      break;
  }
  return new Response(JSON.stringify(body), {
    status: rejection.status,
    headers: { "content-type": "application/json", "x-request-id": requestId },
  });
}
