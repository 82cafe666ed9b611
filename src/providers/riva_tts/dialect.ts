/**
 * The `riva-tts` dialect: NVIDIA Riva's speech synthesis, for speech models only (a chat call
 * fails at the adapter). It rebuilds nothing a chat request carries, so it refuses nothing.
 */
import type { DialectModule } from "../dialect_module.ts";
import { createRivaTtsAdapter } from "./adapter.ts";

export const rivaTtsDialect: DialectModule = {
  id: "riva-tts",
  credentials: (provider) => [provider.api_key_env],
  capabilities: { n: false, responseFormat: false, hostedTools: false },
  createAdapter: (deps) => createRivaTtsAdapter(deps),
};
