/** `GET /v1/models` and `GET /v1/models/{id}`: a fixed list plus every model name seen. */

import { errorResponse, jsonResponse } from "./responses.ts";

export const FIXED_MODELS = [
  "mistral-small-2503",
  "mistral-large-2411",
  "mistral-embed",
  "voxtral-mini-latest",
  "whisper-large-v3",
  "tts-1",
] as const;
const MAX_SEEN = 200;
const CREATED = 1735689600;

export class ModelRegistry {
  readonly #seen = new Set<string>();

  remember(model: string): void {
    if (this.#seen.size < MAX_SEEN) this.#seen.add(model);
  }

  reset(): void {
    this.#seen.clear();
  }

  list(requestId: string): Response {
    const ids = new Set<string>([...FIXED_MODELS, ...this.#seen]);
    return jsonResponse({ object: "list", data: [...ids].map(modelObject) }, requestId);
  }

  get(id: string, requestId: string): Response {
    if ((FIXED_MODELS as readonly string[]).includes(id) || this.#seen.has(id)) {
      return jsonResponse(modelObject(id), requestId);
    }
    return errorResponse(404, `The model '${id}' does not exist`, requestId, {
      code: "model_not_found",
      param: "model",
    });
  }
}

function modelObject(id: string) {
  return { id, object: "model", created: CREATED, owned_by: "sovra-simulator" };
}
