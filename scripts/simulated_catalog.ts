/**
 * The default catalog with every provider pointed at local simulators: what the demo and the
 * benchmark serve. Models and prices stay as shipped; only `base_url` (and credentials) change.
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

/** Writes `providers.json` + `models.json` into `dir`; returns the env the credentials need. */
export async function writeSimulatedCatalog(
  sourceDir: string,
  dir: string,
  urls: SimulatorUrls,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const providers = providersFileSchema(DIALECTS).parse(
    JSON.parse(await Deno.readTextFile(`${sourceDir}/providers.json`)),
  );
  for (const provider of Object.values(providers.providers)) {
    switch (provider.dialect) {
      case "openai":
        provider.base_url = urls.openai;
        break;
      case "riva-tts":
        // The OpenAI simulator also speaks Riva's `/api/v1/tts/text_to_audio`.
        provider.base_url = urls.openai.replace(/\/v1$/, "/api/v1");
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
  await Deno.writeTextFile(`${dir}/providers.json`, JSON.stringify(providers, null, 2));
  await Deno.copyFile(`${sourceDir}/models.json`, `${dir}/models.json`);
  // The copied models.json references its schema relative to the catalog directory.
  const models = JSON.parse(await Deno.readTextFile(`${dir}/models.json`));
  delete models.$schema;
  await Deno.writeTextFile(`${dir}/models.json`, JSON.stringify(models, null, 2));
}
