/**
 * `deno task schema`: writes `catalog/schema/{providers,models}.schema.json` from the zod
 * schemas that validate the catalog at start-up, so editors validate while operators type.
 * A test checks the committed files are current.
 */
import { catalogJsonSchemas } from "../src/catalog/json_schema.ts";
import { DIALECTS } from "../src/providers/registry.ts";

const dir = new URL("../catalog/schema/", import.meta.url);
await Deno.mkdir(dir, { recursive: true });
for (const [name, schema] of Object.entries(catalogJsonSchemas(DIALECTS))) {
  await Deno.writeTextFile(new URL(name, dir), JSON.stringify(schema, null, 2) + "\n");
  console.log(`wrote catalog/schema/${name}`);
}
