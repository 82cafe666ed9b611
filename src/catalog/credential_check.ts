/**
 * The credential variables the catalog names that are not set, for a warning at start and on
 * reload (names only, never values). Routes on such providers then fail over to standbys.
 */
import type { Catalog } from "./catalog.ts";
import type { DialectTable } from "./dialect_rules.ts";

export interface MissingCredential {
  provider: string;
  env: string;
}

export function missingCredentials(
  catalog: Catalog,
  secret: (name: string) => string | undefined,
  dialects: DialectTable,
): MissingCredential[] {
  const used = new Set(catalog.models.flatMap((m) => m.routes.map((r) => r.provider)));
  const missing: MissingCredential[] = [];
  for (const id of used) {
    const provider = catalog.providers[id];
    if (!provider) continue;
    const names = dialects.find((d) => d.id === provider.dialect)?.credentials(provider) ?? [];
    for (const env of names) {
      if (env !== undefined && !secret(env)) missing.push({ provider: id, env });
    }
  }
  return missing;
}
