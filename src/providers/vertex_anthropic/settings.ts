/** The `vertex` block of a `vertex-anthropic` provider: project, region, service account. */
import { z } from "zod";
import { EnvName } from "../../catalog/schema.ts";
import type { DialectSettings } from "../../catalog/dialect_rules.ts";

export const VertexSettings = z.strictObject({
  project: z.string().min(1),
  region: z.string().min(1),
  service_account_env: EnvName,
  token_url: z.url({ protocol: /^https?$/ }).default("https://oauth2.googleapis.com/token"),
});
export type VertexSettings = z.output<typeof VertexSettings>;

export const VERTEX_SETTINGS: DialectSettings<typeof VertexSettings> = {
  field: "vertex",
  schema: VertexSettings,
};
