/**
 * The `openai` dialect: OpenAI-compatible upstreams (Mistral, Scaleway, OVHcloud, IONOS,
 * STACKIT …). The request passes through: no settings block, no refusals, every capability.
 */
import type { DialectModule } from "../dialect_module.ts";
import { createOpenAIAdapter } from "./adapter.ts";

export const openaiDialect: DialectModule = {
  id: "openai",
  credentials: (provider) => [provider.api_key_env],
  capabilities: { n: true, responseFormat: true, hostedTools: true },
  createAdapter: (deps) => createOpenAIAdapter(deps),
};
