/**
 * The `openai` dialect: OpenAI-compatible upstreams (Mistral, Scaleway, OVHcloud, IONOS,
 * STACKIT …). The request passes through, shaped by the provider's request schema where the
 * catalog has one: no settings block, no refusals, every capability.
 */
import type { DialectModule } from "../dialect_module.ts";
import { createOpenAIAdapter } from "./adapter.ts";
import { conformChatRequest } from "./conform_request.ts";

export const openaiDialect: DialectModule = {
  id: "openai",
  credentials: (provider) => [provider.api_key_env],
  capabilities: { n: true, responseFormat: true, hostedTools: true },
  conform: conformChatRequest,
  createAdapter: (deps) => createOpenAIAdapter(deps),
};
