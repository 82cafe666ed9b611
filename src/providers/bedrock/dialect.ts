/** The `bedrock` dialect: Bedrock Runtime's Converse API, signed with the `aws` block's keys. */
import type { DialectModule } from "../dialect_module.ts";
import { settingsOf } from "../dialect_module.ts";
import { createBedrockAdapter } from "./adapter.ts";
import { bedrockRefusals } from "./refusals.ts";
import { BEDROCK_SETTINGS } from "./settings.ts";

export const bedrockDialect: DialectModule = {
  id: "bedrock",
  settings: BEDROCK_SETTINGS,
  credentials: (provider) => {
    const aws = settingsOf(BEDROCK_SETTINGS, provider);
    return [provider.api_key_env, aws?.access_key_id_env, aws?.secret_access_key_env];
  },
  capabilities: { n: false, responseFormat: false, hostedTools: false },
  refusals: bedrockRefusals,
  createAdapter: ({ secret, fetch }) =>
    createBedrockAdapter({ env: secret, ...(fetch ? { fetch } : {}) }),
};
