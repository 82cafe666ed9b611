/**
 * `GET /openapi.json`: OpenAPI 3.1, generated from the same zod schemas that validate the
 * request bodies and describe the answers (zod's own `toJSONSchema`, JSON Schema 2020-12 as
 * OpenAPI 3.1 uses). Path parameters are declared from the `{name}` segments of each path.
 */
import { z } from "zod";

export interface OperationSpec {
  path: string;
  method: "get" | "post";
  summary: string;
  /** The request body schema, its content type and a working example. */
  body?: { schema: z.ZodType; contentType?: string; example?: Record<string, unknown> };
  /** Where the body is not JSON, a hand-written schema (multipart). */
  rawBodySchema?: { contentType: string; schema: Record<string, unknown> };
  responses: Record<string, ResponseSpec>;
  /** The path's `{name}` parameters (each one must be described), with an example. */
  pathParams?: Record<string, { description: string; example?: string }>;
  auth?: boolean;
  /** The request is billed (credit and key budget checks): its 402s are listed. */
  billed?: boolean;
}

/** The 401 codes of every authenticated operation. */
const UNAUTHORIZED =
  "`missing_api_key` (no Authorization header), `invalid_api_key` (a bad or revoked key), `api_key_expired` (the key's `expires_at` has passed: a set expiry or the end of a rotation's grace period). Do not retry with the same key.";
/** The 402 codes of every billed operation. */
const PAYMENT_REQUIRED =
  "`insufficient_credits` (the organization's balance is at or below zero: top up), `key_budget_exceeded` (the API key's spend in its budget period reached its `budget_micro_eur`; the message names when the period resets, UTC). The error object's `message` says which.";

export interface ResponseSpec {
  description: string;
  /** Content type → the body's schema: zod, or hand-written JSON Schema (binary, text). */
  content?: Record<string, z.ZodType | Record<string, unknown>>;
  /** Response headers worth naming (e.g. `Retry-After`). */
  headers?: Record<string, string>;
}

const ErrorObject = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.string(),
    param: z.string().optional(),
  }),
});

function jsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): Record<string, unknown> {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as Record<
    string,
    unknown
  >;
  delete out.$schema;
  return out;
}

function responseObject(r: ResponseSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { description: r.description };
  if (r.content) {
    out.content = Object.fromEntries(
      Object.entries(r.content).map(([type, schema]) => [
        type,
        { schema: schema instanceof z.ZodType ? jsonSchema(schema, "output") : schema },
      ]),
    );
  }
  if (r.headers) {
    out.headers = Object.fromEntries(
      Object.entries(r.headers).map(([name, description]) => [
        name,
        { description, schema: { type: "string" } },
      ]),
    );
  }
  return out;
}

/** The `{name}` parameters of a path, each declared (OpenAPI requires it). */
function pathParameters(op: OperationSpec): Array<Record<string, unknown>> {
  return [...op.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    const param = op.pathParams?.[name!];
    if (param === undefined) throw new Error(`${op.path}: describe '{${name}}'`);
    return {
      name,
      in: "path",
      required: true,
      description: param.description,
      schema: { type: "string", minLength: 1 },
      ...(param.example === undefined ? {} : { example: param.example }),
    };
  });
}

const TRACE_HEADERS = {
  "x-request-id": "The request id (also `x-sovra-request-id`), on every answer.",
};

/** Every authenticated operation's 403 (the gate's check, before any other). */
const SUSPENDED = {
  description:
    "`organization_suspended`: the key's organization is suspended by the gateway's operator (its keys are refused until it is restored); `policy_forbids_model` where the organization's policy allows no route",
  headers: responseObject({ description: "", headers: TRACE_HEADERS }).headers,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
};

export function buildOpenApiDocument(
  operations: readonly OperationSpec[],
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      responses[status] = responseObject({ ...r, headers: { ...TRACE_HEADERS, ...r.headers } });
    }
    const error = (description: string) => ({
      description,
      headers: responseObject({ description: "", headers: TRACE_HEADERS }).headers,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    });
    if (op.auth !== false) responses["401"] ??= error(UNAUTHORIZED);
    if (op.billed) responses["402"] ??= error(PAYMENT_REQUIRED);
    if (op.auth !== false && !responses["403"]) responses["403"] = SUSPENDED;
    responses.default = {
      description: "Error (the spec's error object)",
      headers: responseObject({ description: "", headers: TRACE_HEADERS }).headers,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
    const operation: Record<string, unknown> = {
      operationId: operationId(op),
      summary: op.summary,
      responses,
    };
    const parameters = pathParameters(op);
    if (parameters.length > 0) operation.parameters = parameters;
    if (op.body) {
      operation.requestBody = {
        required: true,
        content: {
          [op.body.contentType ?? "application/json"]: {
            schema: jsonSchema(op.body.schema),
            ...(op.body.example === undefined ? {} : { example: op.body.example }),
          },
        },
      };
    } else if (op.rawBodySchema) {
      operation.requestBody = {
        required: true,
        content: { [op.rawBodySchema.contentType]: { schema: op.rawBodySchema.schema } },
      };
    }
    if (op.auth === false) operation.security = [];
    (paths[op.path] ??= {})[op.method] = operation;
  }
  return {
    openapi: "3.1.0",
    servers: [{ url: "/", description: "This gateway" }],
    info: {
      title: "Sovra gateway API",
      version: "1.0.0",
      description:
        "An OpenAI-compatible gateway in front of model providers that serve from the EU.",
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "sk-ex-… API key" },
      },
      schemas: { Error: jsonSchema(ErrorObject) },
    },
  };
}

/** `get_v1_models_id`, `post_v1_chat_completions` … (unique per method and path). */
function operationId(op: OperationSpec): string {
  return `${op.method}_${op.path.replace(/[^a-zA-Z0-9]+/g, "_").replace(/^_|_$/g, "")}`;
}
