/**
 * Vertex AI simulator for Anthropic models: `POST /token` (JWT-bearer grant) and
 * `/v1/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:rawPredict` /
 * `:streamRawPredict`. Checks the bearer token (401 Google-style), the body
 * (`anthropic_version`, no `model`, `max_tokens`), the conversation rules and the thinking
 * signatures it issued (400 `invalid_request_error`). Scenario tokens: ../bedrock/behaviour.ts.
 */
import { sleep, waitForAbort } from "../openai/timing.ts";
import { behaviourOf } from "../bedrock/behaviour.ts";
import { cachePointsOf, planAnswer, validate } from "../bedrock/conversation.ts";
import { cacheMinimum, SimPromptCache } from "../prompt_cache.ts";
import { scriptedBody } from "../bedrock/stream_body.ts";
import { createOAuthServer } from "./oauth.ts";
import {
  loadSchemaDir,
  rejectionResponse,
  type Violation,
  violationsOf,
} from "../provider_rules.ts";
import { BOTH_SAMPLING_MESSAGE, refusesBothSampling } from "../anthropic_sampling.ts";
import {
  messagesResponse,
  messagesStreamEvents,
  messagesUsage,
  readMessagesRequest,
} from "./messages.ts";

const SCHEMAS = loadSchemaDir();
const VERTEX_SCHEMA = SCHEMAS.get("vertex_anthropic")!.endpoints.chat!;

export interface VertexRecordedRequest {
  path: string;
  model: string;
  stream: boolean;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  usage?: Record<string, unknown>;
}

export interface VertexSimulator {
  /** The provider's `base_url`. */
  url: string;
  tokenUrl: string;
  serviceAccountJson: string;
  requests: VertexRecordedRequest[];
  /** Body fields outside `catalog/provider_schemas/vertex_anthropic.json` (each refused, as Anthropic does). */
  violations: Violation[];
  /** Grants answered so far. */
  readonly tokensIssued: number;
  /** Makes every issued access token unknown (the next call gets 401). */
  revokeTokens(): void;
  reset(): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const PATH =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;
const encoder = new TextEncoder();

export async function startVertexSimulator(): Promise<VertexSimulator> {
  const oauth = await createOAuthServer();
  const requests: VertexRecordedRequest[] = [];
  const violations: Violation[] = [];
  const closing = new AbortController();
  const cache = new SimPromptCache();
  let tokenUrl = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/token") {
      return await oauth.handleToken(req, tokenUrl);
    }
    const match = PATH.exec(url.pathname);
    if (req.method !== "POST" || match === null) return googleError(404, "NOT_FOUND", "Not found.");
    const token = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
    if (token === undefined || !oauth.accepts(token)) {
      await req.body?.cancel();
      return googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.");
    }
    const model = decodeURIComponent(match[3] ?? "");
    const stream = match[4] === "streamRawPredict";
    let body: Record<string, unknown>;
    try {
      body = await req.json();
    } catch {
      return anthropicError(400, "invalid_request_error", "Malformed JSON body.");
    }
    const record: VertexRecordedRequest = {
      path: url.pathname,
      model,
      stream,
      headers: Object.fromEntries(req.headers),
      body,
    };
    requests.push(record);
    const signal = AbortSignal.any([req.signal, closing.signal]);
    const behaviour = behaviourOf(model);
    if (behaviour.slowMs > 0 && !(await sleep(behaviour.slowMs, signal))) {
      return new Response(null, { status: 499 });
    }
    if (behaviour.googleFail !== undefined) {
      const { status, array } = behaviour.googleFail;
      return googleError(
        status,
        status === 429 ? "RESOURCE_EXHAUSTED" : "FAILED_PRECONDITION",
        "Simulated Google error.",
        array,
      );
    }
    if (behaviour.fail !== undefined) {
      return anthropicError(behaviour.fail, errorTypeFor(behaviour.fail), "Simulated failure.");
    }
    if (body.anthropic_version !== "vertex-2023-10-16") {
      return anthropicError(
        400,
        "invalid_request_error",
        "anthropic_version: must be 'vertex-2023-10-16'",
      );
    }
    if ("model" in body) {
      return anthropicError(400, "invalid_request_error", "model: Extra inputs are not permitted");
    }
    if (typeof body.max_tokens !== "number") {
      return anthropicError(400, "invalid_request_error", "max_tokens: Field required");
    }
    const found = violationsOf("vertex_anthropic", "chat", VERTEX_SCHEMA, body);
    violations.push(...found);
    if (found.length > 0) {
      return rejectionResponse(SCHEMAS.get("vertex_anthropic")!, found, "req_vrtx");
    }
    if (refusesBothSampling(model) && body.temperature !== undefined && body.top_p !== undefined) {
      return anthropicError(400, "invalid_request_error", BOTH_SAMPLING_MESSAGE);
    }
    if (stream !== (body.stream === true)) {
      return anthropicError(400, "invalid_request_error", "stream must match the endpoint");
    }
    const simRequest = readMessagesRequest(body);
    const invalid = validate(simRequest);
    if (invalid !== undefined) return anthropicError(400, "invalid_request_error", invalid);
    const points = cachePointsOf(simRequest, model);
    const cached = points.length > 0 ? cache.use(points, cacheMinimum(model)) : undefined;
    const plan = planAnswer(simRequest, behaviour, "toolu_vrtx_", cached);
    if (!behaviour.noUsage) record.usage = messagesUsage(plan);
    if (!stream) {
      if (behaviour.silentAfter !== undefined) {
        await waitForAbort(signal);
        return new Response(null, { status: 499 });
      }
      return Response.json(messagesResponse(plan, model, behaviour.noUsage));
    }
    const chunks = messagesStreamEvents(plan, model, behaviour.noUsage).map(([event, data]) =>
      sse(event, data)
    );
    const failure = sse("error", {
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    return new Response(scriptedBody(chunks, behaviour, signal, failure), {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  tokenUrl = `${base}/token`;
  return {
    url: base,
    tokenUrl,
    serviceAccountJson: oauth.serviceAccountJson,
    requests,
    get tokensIssued() {
      return oauth.issued;
    },
    revokeTokens: () => oauth.revokeAll(),
    violations,
    reset: () => {
      requests.splice(0);
      violations.splice(0);
    },
    close: async () => {
      closing.abort();
      await server.shutdown();
    },
    /** `await using sim = await start…()` closes it at the end of the scope. */
    [Symbol.asyncDispose](this: { close(): Promise<void> }) {
      return this.close();
    },
  };
}

function sse(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function errorTypeFor(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

function anthropicError(status: number, type: string, message: string): Response {
  return Response.json({ type: "error", error: { type, message } }, { status });
}

function googleError(status: number, code: string, message: string, array = false): Response {
  const body = { error: { code: status, message, status: code } };
  return Response.json(array ? [body] : body, { status });
}
