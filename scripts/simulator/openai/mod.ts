/**
 * Upstream simulator for the `openai` dialect: stands in for EU OpenAI-compatible providers
 * (Mistral, Scaleway, OVHcloud, IONOS, STACKIT) in tests, the demo and the benchmark.
 * Endpoints under /v1: chat/completions (JSON and SSE), embeddings, audio/transcriptions
 * (multipart), audio/speech, moderations (Mistral's shape, moderations.ts), models.
 *
 * Behaviour is picked by the upstream model name, split on `+` (see behaviour.ts):
 * - `fail-<status>`: that status in OpenAI's error shape (429 adds `retry-after: 1`);
 *   `fail-<status>-raw`: that status with an HTML body.
 * - `drop-after-<n>`: stream: n chunks (every `data:` event counts, the role chunk first),
 *   then the connection is cut (no `[DONE]`). Non-stream: headers, then a cut body.
 * - `silent` / `silent-after-<n>`: headers (and n chunks), then nothing until the client leaves;
 *   non-stream: no answer at all.
 * - A chat request with a `prompt_cache_key` is cached as Mistral caches it: the prompt's
 *   leading 64-token blocks seen before under the same key come back as
 *   `usage.prompt_tokens_details.cached_tokens` (`prompt_tokens` still counts them).
 * - `no-usage`, `slow-<ms>` (before answering and between chunks), `wait-<ms>` (chat: before
 *   answering only), `chunks-<n>` (content chunks, default 8), `reasoning`, `parallel` (two tool
 *   calls), `16k` (speech sample rate),
 *   `jailbreak-<percent>` (the moderation answer's `jailbreaking` score), `retired` (404
 *   `model_not_found`, as a provider answers a model it no longer serves).
 *
 * Provider rules: under `/provider/<schema>/v1/…` (`urlFor(<schema>)`) the simulator is that
 * provider: the body is checked against `catalog/provider_schemas/<schema>.json`, a field outside
 * it is refused the way the provider refuses it (Mistral: 422 `extra_forbidden`) or left unused
 * where the provider ignores it, and each one is recorded in `violations`; provider names are
 * read (`random_seed`, `voice_id`); a schema with `stream_usage: always` puts usage on the last
 * stream chunk unasked. Plain `/v1/…` accepts any field, as before.
 * Token counts are whitespace-separated words (see text_plan.ts), not a real tokenizer.
 */

import { handleRivaTts } from "./riva_tts.ts";
import { handleChat } from "./chat_handler.ts";
import type { RequestContext } from "./context.ts";
import { handleEmbeddings } from "./embeddings.ts";
import { handleModerations } from "./moderations.ts";
import { ModelRegistry } from "./models.ts";
import { errorResponse, invalidRequest } from "./responses.ts";
import { handleSpeech } from "./speech.ts";
import { handleTranscription } from "./transcriptions.ts";
import { behaviourOf } from "./behaviour.ts";
import { SimBlockCache } from "../prompt_cache.ts";
import {
  loadSchemaDir,
  rejectionResponse,
  type Violation,
  violationsOf,
  withOpenAiNames,
  withoutViolations,
} from "../provider_rules.ts";
import type {
  ProviderRequestSchema,
  SchemaEndpoint,
} from "../../../src/catalog/provider_schema.ts";

export type { Violation } from "../provider_rules.ts";

export { ANSWER_TEXT, REASONING_TEXT } from "./text_plan.ts";
export { REASONING_SIGNATURE } from "./chat_answer.ts";
export { DEFAULT_DIMENSIONS, embeddingOf } from "./embeddings.ts";
export { SECONDS_PER_CHARACTER, SPEECH_CONTENT_TYPES } from "./speech.ts";
export { TRANSCRIPT_TEXT } from "./transcriptions.ts";

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
}

export interface RecordedRequest {
  method: string;
  /** The endpoint path (`/v1/chat/completions`), without a `/provider/<schema>` prefix. */
  path: string;
  /** The provider schema the request came in under (`urlFor`), if any. */
  profile?: string;
  headers: Record<string, string>;
  /** Parsed JSON; the raw text when it was not JSON; `{fields, files}` for multipart. */
  body: unknown;
  /** A JSON body's text exactly as it arrived (byte-stability checks). */
  text?: string;
}

export interface OpenAISimulator {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Fields sent outside a provider's schema (requests under `urlFor(<schema>)`). */
  violations: Violation[];
  /** Base URL ending in `/v1` that behaves as the provider of `catalog/provider_schemas/<schema>.json`. */
  urlFor(schema: string): string;
  /**
   * The model list `GET urlFor(schema)/models` answers (ids with the `retired` token are left
   * out, as a provider lists only what it serves).
   */
  serveModels(schema: string, ids: readonly string[]): void;
  reset(): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface OpenAISimulatorOptions {
  port?: number;
  hostname?: string;
  /** When set, require `Authorization: Bearer <apiKey>`, else 401. */
  apiKey?: string;
  /** Default true; the benchmark turns it off. */
  recordRequests?: boolean;
  /**
   * Every chat answer waits this long first, as if its model were named `+wait-<ms>` (the
   * benchmark's side by side with earlier code, whose catalogs name no such model).
   */
  chatWaitMs?: number;
  /** Where the provider schemas are read from (default: the repository's `catalog/provider_schemas/`). */
  schemaDir?: URL;
}

const ENDPOINT_OF_PATH: Readonly<Record<string, SchemaEndpoint>> = {
  "/v1/chat/completions": "chat",
  "/v1/embeddings": "embeddings",
  "/v1/audio/transcriptions": "transcription",
  "/v1/audio/speech": "speech",
  "/v1/moderations": "moderation",
  "/api/v1/tts/text_to_audio": "speech",
};

type Body =
  | { kind: "none" }
  | { kind: "json"; value: unknown; text?: string }
  | { kind: "invalid"; text: string }
  | { kind: "form"; form: FormData };

export async function startOpenAISimulator(
  options: OpenAISimulatorOptions = {},
): Promise<OpenAISimulator> {
  const record = options.recordRequests ?? true;
  const chatWaitMs = options.chatWaitMs ?? 0;
  const expectedAuth = options.apiKey === undefined ? undefined : `Bearer ${options.apiKey}`;
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const schemas = loadSchemaDir(options.schemaDir);
  const models = new ModelRegistry();
  const listed = new Map<string, string[]>();
  const stopping = new AbortController();
  const promptCache = new SimBlockCache();
  let seq = 0;

  async function handle(req: Request): Promise<Response> {
    const n = ++seq;
    const requestId = `req_sim${n}`;
    let signal: AbortSignal | undefined;
    const ctx: RequestContext = {
      seq: n,
      requestId,
      promptCache,
      signal: () => signal ??= AbortSignal.any([req.signal, stopping.signal]),
    };
    const { profile, path } = profileOf(pathOf(req.url));
    const body = await readBody(req);
    if (record) {
      requests.push({
        method: req.method,
        path,
        ...(profile === undefined ? {} : { profile }),
        headers: Object.fromEntries(req.headers),
        body: recordedBody(body),
        ...(body.kind === "json" && body.text !== undefined ? { text: body.text } : {}),
      });
    }
    if (expectedAuth !== undefined && req.headers.get("authorization") !== expectedAuth) {
      return errorResponse(401, "Incorrect API key provided.", requestId, {
        type: "invalid_request_error",
        code: "invalid_api_key",
      });
    }
    if (body.kind === "invalid") {
      return invalidRequest(
        "We could not parse the JSON body of your request. The API expects a JSON payload.",
        requestId,
      );
    }
    if (body.kind === "json" && isRecord(body.value) && typeof body.value.model === "string") {
      if (behaviourOf(body.value.model).retired) return retiredModel(body.value.model, requestId);
      models.remember(body.value.model);
    }
    let usageAlways = false;
    let shaped: Body = body;
    if (profile !== undefined && req.method === "POST") {
      const schema = schemas.get(profile);
      if (schema === undefined) {
        return errorResponse(404, `No provider schema '${profile}'.`, requestId);
      }
      const applied = applySchema(schema, profile, path, body);
      if (applied instanceof Response) return applied;
      shaped = applied.body;
      usageAlways = applied.usageAlways;
    }
    return await route(req.method, path, shaped, ctx, usageAlways, profile);
  }

  /**
   * The provider's reading of the body: refused (a Response) when its schema rejects a field
   * it holds, else without the fields it would not use and under OpenAI's names.
   */
  function applySchema(
    schema: ProviderRequestSchema,
    profile: string,
    path: string,
    body: Body,
  ): Response | { body: Body; usageAlways: boolean } {
    const endpoint = ENDPOINT_OF_PATH[path];
    const rules = endpoint === undefined ? undefined : schema.endpoints[endpoint];
    if (endpoint === undefined || rules === undefined) return { body, usageAlways: false };
    const usageAlways = endpoint === "chat" && rules.stream_usage === "always";
    if (body.kind === "form") {
      const fields: Record<string, unknown> = {};
      for (const [name, value] of body.form.entries()) fields[name] = value;
      const found = violationsOf(profile, endpoint, rules, fields);
      violations.push(...found);
      if (found.length > 0 && rules.unknown_fields === "reject") {
        return rejectionResponse(schema, found, `req_sim${seq}`);
      }
      return { body, usageAlways };
    }
    if (body.kind !== "json" || !isRecord(body.value)) return { body, usageAlways };
    const found = violationsOf(profile, endpoint, rules, body.value);
    violations.push(...found);
    if (found.length > 0 && rules.unknown_fields === "reject") {
      return rejectionResponse(schema, found, `req_sim${seq}`);
    }
    const kept = withoutViolations(body.value, found);
    return { body: { kind: "json", value: withOpenAiNames(rules, kept) }, usageAlways };
  }

  function route(
    method: string,
    path: string,
    body: Body,
    ctx: RequestContext,
    usageAlways: boolean,
    profile: string | undefined,
  ) {
    const json = body.kind === "json" ? body.value : undefined;
    if (method === "POST") {
      switch (path) {
        case "/v1/chat/completions":
          return handleChat(json, ctx, chatWaitMs, usageAlways);
        case "/v1/embeddings":
          return handleEmbeddings(json, ctx);
        case "/v1/audio/speech":
          return handleSpeech(json, ctx);
        case "/v1/moderations":
          return handleModerations(json, ctx);
        case "/api/v1/tts/text_to_audio":
          return handleRivaTts(json, ctx);
        case "/v1/audio/transcriptions":
          return body.kind === "form" ? handleTranscription(body.form, ctx) : invalidRequest(
            "Expected a multipart/form-data body with a 'file' part.",
            ctx.requestId,
            "file",
          );
      }
    }
    if (method === "GET" && path === "/v1/models") {
      const own = profile === undefined ? undefined : listed.get(profile);
      return own === undefined ? models.list(ctx.requestId) : listResponse(own, ctx.requestId);
    }
    if (method === "GET" && path.startsWith("/v1/models/")) {
      return models.get(decodeURIComponent(path.slice("/v1/models/".length)), ctx.requestId);
    }
    return errorResponse(404, `Invalid URL (${method} ${path})`, ctx.requestId, {
      type: "invalid_request_error",
    });
  }

  const listening = Promise.withResolvers<void>();
  const server = Deno.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? "127.0.0.1",
    onListen: () => listening.resolve(),
    onError: () => errorResponse(500, "The simulator failed to handle the request.", "req_sim"),
  }, handle);
  await listening.promise;

  let closed: Promise<void> | undefined;
  const origin = `http://${hostForUrl(server.addr.hostname)}:${server.addr.port}`;
  return {
    url: `${origin}/v1`,
    requests,
    violations,
    urlFor: (schema: string) => `${origin}/provider/${encodeURIComponent(schema)}/v1`,
    serveModels(schema: string, ids: readonly string[]) {
      listed.set(schema, ids.filter((id) => !behaviourOf(id).retired));
    },
    reset() {
      requests.length = 0;
      violations.length = 0;
      models.reset();
    },
    close() {
      closed ??= (async () => {
        stopping.abort();
        await server.shutdown();
      })();
      return closed;
    },
    /** `await using sim = await start…()` closes it at the end of the scope. */
    [Symbol.asyncDispose](this: { close(): Promise<void> }) {
      return this.close();
    },
  };
}

async function readBody(req: Request): Promise<Body> {
  if (req.method === "GET" || req.method === "HEAD") return { kind: "none" };
  const type = req.headers.get("content-type") ?? "";
  if (type.startsWith("multipart/form-data")) {
    try {
      return { kind: "form", form: await req.formData() };
    } catch {
      return { kind: "invalid", text: "" };
    }
  }
  const text = await req.text();
  if (text === "") return { kind: "none" };
  try {
    return { kind: "json", value: JSON.parse(text), text };
  } catch {
    return { kind: "invalid", text };
  }
}

/** Multipart bodies are recorded as fields plus file metadata, never the file content. */
function recordedBody(body: Body): unknown {
  switch (body.kind) {
    case "none":
      return undefined;
    case "json":
      return body.value;
    case "invalid":
      return body.text;
    case "form": {
      const fields: Record<string, string> = {};
      const files: RecordedFile[] = [];
      for (const [field, value] of body.form.entries()) {
        if (typeof value === "string") {
          fields[field] = field in fields ? `${fields[field]},${value}` : value;
        } else {
          files.push({ field, filename: value.name, contentType: value.type, size: value.size });
        }
      }
      return { fields, files };
    }
  }
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** `/provider/<schema>/v1/…` → the schema and `/v1/…`; other paths have no profile. */
function profileOf(path: string): { profile?: string; path: string } {
  const match = /^\/provider\/([^/]+)(\/.*)$/.exec(path);
  if (match === null) return { path };
  return { profile: decodeURIComponent(match[1]!), path: match[2]! };
}

function listResponse(ids: readonly string[], requestId: string): Response {
  const data = ids.map((id) => ({
    id,
    object: "model",
    created: 1735689600,
    owned_by: "provider",
  }));
  return new Response(JSON.stringify({ object: "list", data }), {
    headers: { "content-type": "application/json", "x-request-id": requestId },
  });
}

function retiredModel(model: string, requestId: string): Response {
  return errorResponse(404, `The model '${model}' does not exist`, requestId, {
    code: "model_not_found",
    param: "model",
  });
}

function hostForUrl(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
