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
 * - `no-usage`, `slow-<ms>` (before answering and between chunks), `wait-<ms>` (chat: before
 *   answering only), `chunks-<n>` (content chunks, default 8), `reasoning`, `parallel` (two tool
 *   calls), `16k` (speech sample rate),
 *   `jailbreak-<percent>` (the moderation answer's `jailbreaking` score).
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
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON; the raw text when it was not JSON; `{fields, files}` for multipart. */
  body: unknown;
}

export interface OpenAISimulator {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  requests: RecordedRequest[];
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
}

type Body =
  | { kind: "none" }
  | { kind: "json"; value: unknown }
  | { kind: "invalid"; text: string }
  | { kind: "form"; form: FormData };

export async function startOpenAISimulator(
  options: OpenAISimulatorOptions = {},
): Promise<OpenAISimulator> {
  const record = options.recordRequests ?? true;
  const chatWaitMs = options.chatWaitMs ?? 0;
  const expectedAuth = options.apiKey === undefined ? undefined : `Bearer ${options.apiKey}`;
  const requests: RecordedRequest[] = [];
  const models = new ModelRegistry();
  const stopping = new AbortController();
  let seq = 0;

  async function handle(req: Request): Promise<Response> {
    const n = ++seq;
    const requestId = `req_sim${n}`;
    let signal: AbortSignal | undefined;
    const ctx: RequestContext = {
      seq: n,
      requestId,
      signal: () => signal ??= AbortSignal.any([req.signal, stopping.signal]),
    };
    const path = pathOf(req.url);
    const body = await readBody(req);
    if (record) {
      requests.push({
        method: req.method,
        path,
        headers: Object.fromEntries(req.headers),
        body: recordedBody(body),
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
      models.remember(body.value.model);
    }
    return await route(req.method, path, body, ctx);
  }

  function route(method: string, path: string, body: Body, ctx: RequestContext) {
    const json = body.kind === "json" ? body.value : undefined;
    if (method === "POST") {
      switch (path) {
        case "/v1/chat/completions":
          return handleChat(json, ctx, chatWaitMs);
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
    if (method === "GET" && path === "/v1/models") return models.list(ctx.requestId);
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
  return {
    url: `http://${hostForUrl(server.addr.hostname)}:${server.addr.port}/v1`,
    requests,
    reset() {
      requests.length = 0;
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
    return { kind: "json", value: JSON.parse(text) };
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

function hostForUrl(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
