/**
 * `GET /openapi.json`: OpenAPI 3.1, generated from the same zod schemas that validate the
 * request bodies (zod's own `toJSONSchema`, JSON Schema 2020-12 as OpenAPI 3.1 uses).
 */
import { z } from "zod";

export interface OperationSpec {
  path: string;
  method: "get" | "post";
  summary: string;
  /** The request body schema and its content type. */
  body?: { schema: z.ZodType; contentType?: string };
  /** Where the body is not JSON, a hand-written schema (multipart). */
  rawBodySchema?: { contentType: string; schema: Record<string, unknown> };
  responses: Record<string, { description: string; contentType?: string }>;
  auth?: boolean;
}

const ErrorObject = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.string(),
    param: z.string().optional(),
  }),
});

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as Record<
    string,
    unknown
  >;
  delete out.$schema;
  return out;
}

export function buildOpenApiDocument(
  operations: readonly OperationSpec[],
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.contentType ? { content: { [r.contentType]: {} } } : {}),
      };
    }
    responses.default = {
      description: "Error (the spec's error object)",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
    const operation: Record<string, unknown> = { summary: op.summary, responses };
    if (op.body) {
      operation.requestBody = {
        required: true,
        content: {
          [op.body.contentType ?? "application/json"]: { schema: jsonSchema(op.body.schema) },
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
