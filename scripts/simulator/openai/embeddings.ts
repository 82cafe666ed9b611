/**
 * `POST /v1/embeddings`: deterministic unit vectors seeded by each input, 8 dimensions unless
 * `dimensions` says otherwise, as float arrays or base64 little-endian float32 bytes.
 */

import { z } from "zod";
import { behaviourOf } from "./behaviour.ts";
import type { RequestContext } from "./context.ts";
import { interruptedResponse, invalidBody, invalidRequest, jsonResponse } from "./responses.ts";
import { countWords } from "./text_plan.ts";
import { sleep } from "./timing.ts";

export const DEFAULT_DIMENSIONS = 8;
const MAX_DIMENSIONS = 4096;
const MAX_INPUTS = 2048;

const EmbeddingsRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([
    z.string(),
    z.array(z.string()),
    z.array(z.number().int()),
    z.array(z.array(z.number().int())),
  ]),
  encoding_format: z.enum(["float", "base64"]).nullish(),
  dimensions: z.number().int().min(1).max(MAX_DIMENSIONS).nullish(),
});

export async function handleEmbeddings(body: unknown, ctx: RequestContext): Promise<Response> {
  const parsed = EmbeddingsRequest.safeParse(body);
  if (!parsed.success) return invalidBody(parsed.error.issues, ctx.requestId);
  const request = parsed.data;
  const inputs = normaliseInput(request.input);
  if (inputs.length === 0 || inputs.length > MAX_INPUTS) {
    return invalidRequest(
      `'input' must hold between 1 and ${MAX_INPUTS} items.`,
      ctx.requestId,
      "input",
    );
  }
  if (inputs.some((item) => item.length === 0)) {
    return invalidRequest(
      "'input' cannot contain an empty string or an empty token array.",
      ctx.requestId,
      "input",
    );
  }
  const behaviour = behaviourOf(request.model);
  if (behaviour.slowMs > 0) await sleep(behaviour.slowMs, ctx.signal());
  const interrupted = await interruptedResponse(behaviour, ctx.signal, ctx.requestId);
  if (interrupted !== undefined) return interrupted;

  const dims = request.dimensions ?? DEFAULT_DIMENSIONS;
  const base64 = request.encoding_format === "base64";
  const data = inputs.map((item, index) => {
    const vector = embeddingOf(item, dims);
    return {
      object: "embedding",
      index,
      embedding: base64 ? toBase64(vector) : Array.from(vector),
    };
  });
  const tokens = inputs.reduce(
    (sum, item) => sum + (typeof item === "string" ? Math.max(1, countWords(item)) : item.length),
    0,
  );
  const response: Record<string, unknown> = { object: "list", data, model: request.model };
  if (!behaviour.noUsage) response.usage = { prompt_tokens: tokens, total_tokens: tokens };
  return jsonResponse(response, ctx.requestId);
}

/** One item per embedding: a string or a token array. */
function normaliseInput(input: string | string[] | number[] | number[][]): (string | number[])[] {
  if (typeof input === "string") return [input];
  if (isTokenArray(input)) return [input];
  return input;
}

function isTokenArray(input: string[] | number[] | number[][]): input is number[] {
  return input.length > 0 && typeof input[0] === "number";
}

/** A unit vector whose components are exact float32 values, so float and base64 agree. */
export function embeddingOf(item: string | readonly number[], dims: number): Float32Array {
  let seed = 2166136261;
  const key = typeof item === "string" ? item : item.join(",");
  for (let i = 0; i < key.length; i++) seed = Math.imul(seed ^ key.charCodeAt(i), 16777619);
  const raw = new Float64Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    const value = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
    raw[i] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 1;
  return Float32Array.from(raw, (v) => v * scale);
}

function toBase64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] ?? 0, true);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}
