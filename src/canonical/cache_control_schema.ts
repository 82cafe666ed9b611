/**
 * The client's prompt-cache breakpoint, shared by chat completions and Responses (zod: it comes
 * from outside). Validated here; `api_formats` turn it into a canonical `CacheBreakpoint`.
 */
import { z } from "zod";
import type { CacheBreakpoint } from "./chat.ts";

/**
 * A prompt-cache breakpoint, Anthropic's shape (the convention OpenRouter and LiteLLM accept on
 * chat completions): the prompt up to here may be cached; `ttl` 5 minutes (default) or 1 hour.
 */
export const CacheControlSchema = z.looseObject({
  type: z.literal("ephemeral"),
  ttl: z.enum(["5m", "1h"]).nullish(),
}).describe(
  "Prompt-cache breakpoint: the prompt up to and including this part may be cached by the provider (Claude on Bedrock and Vertex); removed and named in x-sovra-dropped-params on models without 'cache_control' in supported_parameters.",
);

export type CacheControl = z.infer<typeof CacheControlSchema>;

/** The canonical breakpoint of a client's `cache_control` at `at`, if it sent one. */
export function breakpointOf(
  control: CacheControl | null | undefined,
  at: string,
): CacheBreakpoint | undefined {
  if (control === undefined || control === null) return undefined;
  return { ttl: control.ttl ?? "5m", at };
}
