/**
 * The methods each known path takes, from the same operation list as `/openapi.json`, so a
 * wrong method on a known path is a 405 with `Allow` rather than a 404.
 */
import { endpoints } from "./endpoints.ts";

const table = endpoints.map((op) => ({
  // `{id}` holds the rest of the path (model ids contain a slash).
  pattern: new RegExp(`^${op.path.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, ".+")}$`),
  method: op.method.toUpperCase(),
}));

/** The methods `path` takes, e.g. `["POST"]`; empty for an unknown path. */
export function allowedMethods(path: string): string[] {
  const methods = table.filter((t) => t.pattern.test(path)).map((t) => t.method);
  return [...new Set(methods)];
}
