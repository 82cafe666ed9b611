/**
 * Reads and validates the catalog directory. Any problem is a CatalogError naming the file,
 * the JSON path and what is wrong; the caller decides whether that stops the start (start-up)
 * or keeps the old catalog (reload).
 */
import type { z } from "zod";
import { type Model, modelsFileSchema, type Provider, providersFileSchema } from "./schema.ts";
import type { DialectTable } from "./dialect_rules.ts";
import { Catalog } from "./catalog.ts";
import { ProviderRequestSchema } from "./provider_schema.ts";

export class CatalogError extends Error {
  override name = "CatalogError";
}

/** `models[3].routes[0].provider` from a zod path. */
export function formatJsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(root)" : out;
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    throw new CatalogError(`${file}: cannot be read (${(error as Error).message}).`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogError(`${file}: is not valid JSON (${(error as Error).message}).`);
  }
}

function parseWith<S extends z.ZodType>(schema: S, file: string, data: unknown): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 5).map((issue) =>
    `${file}: at ${formatJsonPath(issue.path)}: ${issue.message}`
  );
  throw new CatalogError(problems.join("\n"));
}

/** Cross-file rules the schemas cannot see. */
function checkReferences(
  providers: Record<string, Provider>,
  models: Model[],
  modelsFile: string,
  dialects: DialectTable,
): void {
  const seen = new Set<string>();
  models.forEach((model, i) => {
    if (seen.has(model.id)) {
      throw new CatalogError(`${modelsFile}: at models[${i}].id: duplicate model id '${model.id}'`);
    }
    seen.add(model.id);
    model.routes.forEach((route, j) => {
      const provider = providers[route.provider];
      if (!provider) {
        throw new CatalogError(
          `${modelsFile}: at models[${i}].routes[${j}].provider: unknown provider '${route.provider}'`,
        );
      }
      const dialect = route.dialect ?? provider.dialect;
      if (model.kind === "moderation" && dialect !== "openai") {
        throw new CatalogError(
          `${modelsFile}: at models[${i}].routes[${j}].dialect: moderation models need the 'openai' dialect (POST base_url + /moderations); '${route.provider}' speaks '${dialect}'`,
        );
      }
      const field = dialects.find((d) => d.id === dialect)?.settings?.field;
      if (field !== undefined && provider[field] === undefined) {
        throw new CatalogError(
          `${modelsFile}: at models[${i}].routes[${j}].dialect: '${dialect}' needs a provider with '${field}' settings; '${route.provider}' has none`,
        );
      }
    });
    if (model.kind === "speech" && !model.voices) {
      throw new CatalogError(`${modelsFile}: at models[${i}].voices: speech models need voices`);
    }
    if ((model.kind === "moderation") !== (model.moderation !== undefined)) {
      throw new CatalogError(
        `${modelsFile}: at models[${i}].moderation: ${
          model.kind === "moderation"
            ? "moderation models need 'moderation' ({\"injection_categories\": [...]})"
            : "is only allowed on moderation models"
        }`,
      );
    }
  });
}

/** Each provider's `request_schema` file, parsed (a file named by several providers is read once). */
async function loadRequestSchemas(
  dir: string,
  providers: Record<string, Provider>,
): Promise<Record<string, ProviderRequestSchema>> {
  const byFile = new Map<string, ProviderRequestSchema>();
  const out: Record<string, ProviderRequestSchema> = {};
  for (const [id, provider] of Object.entries(providers)) {
    const file = provider.request_schema;
    if (file === undefined) continue;
    let schema = byFile.get(file);
    if (schema === undefined) {
      const path = `${dir}/${file}`;
      schema = parseWith(ProviderRequestSchema, path, await readJson(path));
      byFile.set(file, schema);
    }
    out[id] = schema;
  }
  return out;
}

/** Loads `providers.json` and `models.json` for these dialects (the provider registry's `DIALECTS`). */
export async function loadCatalog(dir: string, dialects: DialectTable): Promise<Catalog> {
  const base = dir.replace(/\/$/, "");
  const providersPath = `${base}/providers.json`;
  const modelsPath = `${base}/models.json`;
  const providers = parseWith(
    providersFileSchema(dialects),
    providersPath,
    await readJson(providersPath),
  );
  const models = parseWith(modelsFileSchema(dialects), modelsPath, await readJson(modelsPath));
  checkReferences(providers.providers, models.models, modelsPath, dialects);
  const schemas = await loadRequestSchemas(base, providers.providers);
  return new Catalog(providers.providers, models.models, schemas);
}
