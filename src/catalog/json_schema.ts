/** JSON Schema (draft 2020-12) of the catalog files, generated from the zod schemas. */
import { z } from "zod";
import { modelsFileSchema, providersFileSchema } from "./schema.ts";
import { ProviderRequestSchema } from "./provider_schema.ts";
import type { DialectTable } from "./dialect_rules.ts";

export function catalogJsonSchemas(dialects: DialectTable): Record<string, unknown> {
  const generate = (schema: z.ZodType, title: string) => ({
    ...z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }),
    title,
  });
  return {
    "providers.schema.json": generate(
      providersFileSchema(dialects),
      "Sovra catalog: providers.json",
    ),
    "models.schema.json": generate(modelsFileSchema(dialects), "Sovra catalog: models.json"),
    "provider_request_schema.schema.json": generate(
      ProviderRequestSchema,
      "Sovra catalog: a provider's request schema (provider_schemas/*.json)",
    ),
  };
}
