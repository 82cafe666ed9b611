/** The `aws` block of a `bedrock` provider: region and the variables holding its keys. */
import { z } from "zod";
import { EnvName } from "../../catalog/schema.ts";
import type { DialectSettings } from "../../catalog/dialect_rules.ts";

export const AwsSettings = z.strictObject({
  region: z.string().min(1),
  access_key_id_env: EnvName,
  secret_access_key_env: EnvName,
  session_token_env: EnvName.optional(),
});
export type AwsSettings = z.output<typeof AwsSettings>;

export const BEDROCK_SETTINGS: DialectSettings<typeof AwsSettings> = {
  field: "aws",
  schema: AwsSettings,
};
