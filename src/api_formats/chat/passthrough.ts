/**
 * When a chat stream may take the pass-through (`docs/performance.md`, "Stream pass-through"):
 * the client asks for nothing the chat encoder changes in an `openai`-dialect chunk beyond its
 * head. The route's side (an `openai`-dialect adapter) is decided where the
 * stream opens; each chunk's own side in the pass-through decoder.
 */
import type { ChatRequest } from "../../canonical/chat.ts";

/**
 * Client fields that make an upstream's chunks carry members the chat encoder drops
 * (log-probabilities, audio, web-search annotations): such streams stay re-encoded.
 */
const CHUNK_SHAPING_FIELDS = [
  "logprobs",
  "top_logprobs",
  "modalities",
  "audio",
  "web_search_options",
];

export function wantsPassthrough(request: ChatRequest): boolean {
  if (!request.stream || request.reasoning?.exclude === true) return false;
  if (request.n !== undefined && request.n !== 1) return false;
  return !CHUNK_SHAPING_FIELDS.some((name) => name in request.extra);
}
