/**
 * The default catalog with every provider pointed at local simulators: what the demo and the
 * benchmark serve. Models and prices stay as shipped; only `base_url` (and credentials) change.
 * An `openai`-dialect provider with a `request_schema` is pointed at the simulator's URL for
 * that schema (`/provider/<schema>/v1`), so the simulator refuses what that provider refuses.
 */
import { providersFileSchema } from "../src/catalog/schema.ts";
import { settingsOf } from "../src/providers/dialect_module.ts";
import { DIALECTS } from "../src/providers/registry.ts";
import { VERTEX_SETTINGS } from "../src/providers/vertex_anthropic/settings.ts";

export interface SimulatorUrls {
  openai: string;
  bedrock?: string;
  vertex?: { url: string; tokenUrl: string };
}

/**
 * Writes `providers.json` + `models.json` (and the provider schemas) into `dir`. Returns, per
 * provider schema the simulator is addressed by, the upstream model ids of its routes: what that
 * provider's `GET /models` lists (`OpenAISimulator.serveModels`).
 */
export async function writeSimulatedCatalog(
  sourceDir: string,
  dir: string,
  urls: SimulatorUrls,
): Promise<Record<string, string[]>> {
  await Deno.mkdir(dir, { recursive: true });
  const providers = providersFileSchema(DIALECTS).parse(
    JSON.parse(await Deno.readTextFile(`${sourceDir}/providers.json`)),
  );
  const origin = urls.openai.replace(/\/v1$/, "");
  const as = (file: string | undefined) =>
    file === undefined ? origin : `${origin}/provider/${encodeURIComponent(schemaStem(file))}`;
  for (const provider of Object.values(providers.providers)) {
    switch (provider.dialect) {
      case "openai":
        provider.base_url = `${as(provider.request_schema)}/v1`;
        break;
      case "riva-tts":
        // The OpenAI simulator also speaks Riva's `/api/v1/tts/text_to_audio`.
        provider.base_url = `${as(provider.request_schema)}/api/v1`;
        break;
      case "bedrock":
        if (urls.bedrock) provider.base_url = urls.bedrock;
        break;
      case "vertex-anthropic": {
        const vertex = settingsOf(VERTEX_SETTINGS, provider);
        if (urls.vertex && vertex) {
          provider.base_url = urls.vertex.url;
          vertex.token_url = urls.vertex.tokenUrl;
        }
        break;
      }
    }
  }
  delete providers.$schema;
  await copyDir(`${sourceDir}/provider_schemas`, `${dir}/provider_schemas`);
  await Deno.writeTextFile(`${dir}/providers.json`, JSON.stringify(providers, null, 2));
  await Deno.copyFile(`${sourceDir}/models.json`, `${dir}/models.json`);
  // The copied models.json references its schema relative to the catalog directory.
  const models = JSON.parse(await Deno.readTextFile(`${dir}/models.json`));
  delete models.$schema;
  await Deno.writeTextFile(`${dir}/models.json`, JSON.stringify(models, null, 2));
  const lists: Record<string, string[]> = {};
  for (
    const model of models.models as Array<
      { routes: Array<{ provider: string; upstream_model: string }> }
    >
  ) {
    for (const route of model.routes) {
      const file = providers.providers[route.provider]?.request_schema;
      if (file === undefined) continue;
      (lists[schemaStem(file)] ??= []).push(route.upstream_model);
    }
  }
  return lists;
}

/** `provider_schemas/mistral.json` → `mistral`. */
export function schemaStem(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1).replace(/\.json$/, "");
}

async function copyDir(from: string, to: string): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(from));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  await Deno.mkdir(to, { recursive: true });
  for (const entry of entries) {
    if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}
