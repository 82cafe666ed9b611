/** JSON Schema (draft 2020-12) of the catalog files, generated from the zod schemas. */
import { z } from "zod";
import { ModelsFile, ProvidersFile } from "./schema.ts";

export function catalogJsonSchemas(): Record<string, unknown> {
  const generate = (schema: z.ZodType, title: string) => ({
    ...z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }),
    title,
  });
  return {
    "providers.schema.json": generate(ProvidersFile, "Sovra catalog: providers.json"),
    "models.schema.json": generate(ModelsFile, "Sovra catalog: models.json"),
  };
}
