import assert from "node:assert/strict";
import { catalogJsonSchemas } from "../../src/catalog/json_schema.ts";
import { DIALECTS } from "../../src/providers/registry.ts";

Deno.test("catalog JSON Schema — committed files match the zod schemas (run `deno task schema`)", async () => {
  for (const [name, schema] of Object.entries(catalogJsonSchemas(DIALECTS))) {
    const committed = JSON.parse(
      await Deno.readTextFile(new URL(`../../catalog/schema/${name}`, import.meta.url)),
    );
    assert.deepEqual(committed, JSON.parse(JSON.stringify(schema)), `${name} is stale`);
  }
});
