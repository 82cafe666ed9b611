/** Anthropic model family detection for rebuilding routes. */

/** True for Anthropic (Claude) models: the upstream model id names `anthropic` or `claude`. */
export function isAnthropicFamily(upstreamModel: string): boolean {
  const id = upstreamModel.toLowerCase();
  return id.includes("anthropic") || id.includes("claude");
}
