/**
 * `deno task train-router`: fits the shipped classifier weights on all of RouteLLM's labelled
 * data (read in place from `../shared/data/routellm/`) with the recipe in `recipe.ts`, and
 * writes `src/smart_router/classifier_weights.json` (weights, the reference quantile table, and a
 * digest of the training data). The data itself is never copied into the project.
 */
import { dataDir, loadAll } from "./data.ts";
import { fit } from "./fit.ts";
import { RECIPE } from "./recipe.ts";

const data = await loadAll();
const weights = fit(data, RECIPE);
const digest = await crypto.subtle.digest(
  "SHA-256",
  new TextEncoder().encode(
    Object.values(data).flat().map((i) => `${i.prompt}\u0000${i.strong}\u0000${i.weak}`).join("\n"),
  ),
);
const out = {
  $comment:
    "Written by scripts/router/train.ts from RouteLLM's labelled data (lm-sys/RouteLLM 0b64fda, Apache-2.0); do not edit by hand.",
  trained_on: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.length])),
  data_sha256: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""),
  ...weights,
};
const file = new URL("../../src/smart_router/classifier_weights.json", import.meta.url);
await Deno.writeTextFile(file, JSON.stringify(out, null, 2) + "\n");
console.log(`wrote src/smart_router/classifier_weights.json from ${dataDir().pathname}`);
