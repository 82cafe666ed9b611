/**
 * The provider registry: every upstream dialect module, once. The catalog validates
 * `providers.json` against these (`loadCatalog(dir, DIALECTS)`), the routing plan reads their
 * capabilities and refusals, and the composition root builds their adapters. Adding a dialect
 * is its folder (with a `dialect.ts`) plus one line here.
 */
import type { AdapterDeps, DialectModule } from "./dialect_module.ts";
import type { AdapterRegistry } from "./adapter.ts";
import { openaiDialect } from "./openai/dialect.ts";
import { bedrockDialect } from "./bedrock/dialect.ts";
import { vertexAnthropicDialect } from "./vertex_anthropic/dialect.ts";
import { rivaTtsDialect } from "./riva_tts/dialect.ts";

export const DIALECTS: readonly DialectModule[] = [
  openaiDialect,
  bedrockDialect,
  vertexAnthropicDialect,
  rivaTtsDialect,
];

const BY_ID = new Map(DIALECTS.map((d) => [d.id, d]));

/** The module of a dialect id; the catalog admits no other, so a route's dialect is always found. */
export function dialectOf(id: string): DialectModule | undefined {
  return BY_ID.get(id);
}

/** One adapter per dialect, keyed by its id. */
export function createAdapters(deps: AdapterDeps): AdapterRegistry {
  return Object.fromEntries(DIALECTS.map((d) => [d.id, d.createAdapter(deps)]));
}
