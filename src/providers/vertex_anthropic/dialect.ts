/** The `vertex-anthropic` dialect: Anthropic's Messages API on Vertex AI, with the `vertex` block's service account. */
import type { DialectModule } from "../dialect_module.ts";
import { settingsOf } from "../dialect_module.ts";
import { createVertexAnthropicAdapter } from "./adapter.ts";
import { vertexAnthropicRefusals } from "./refusals.ts";
import { VERTEX_SETTINGS } from "./settings.ts";

export const vertexAnthropicDialect: DialectModule = {
  id: "vertex-anthropic",
  settings: VERTEX_SETTINGS,
  credentials: (provider) => [
    provider.api_key_env,
    settingsOf(VERTEX_SETTINGS, provider)?.service_account_env,
  ],
  capabilities: { n: false, responseFormat: false, hostedTools: false },
  refusals: vertexAnthropicRefusals,
  createAdapter: ({ secret, fetch }) =>
    createVertexAnthropicAdapter({ env: secret, ...(fetch ? { fetch } : {}) }),
};
