/**
 * The committed model, loaded once on first use from model/weights.bin and model/manifest.json
 * next to this file (read permission on the source tree, which every task has).
 */
import { loadModel, type ModelManifest, type NgramModel } from "./ngram_model.ts";

let cached: NgramModel | undefined;

export function committedModel(): NgramModel {
  if (cached === undefined) {
    const manifest = JSON.parse(
      Deno.readTextFileSync(new URL("./model/manifest.json", import.meta.url)),
    ) as ModelManifest;
    const bytes = Deno.readFileSync(new URL("./model/weights.bin", import.meta.url));
    cached = loadModel(manifest, bytes);
  }
  return cached;
}
