/**
 * Bedrock Runtime simulator: `POST /model/{modelId}/converse` and `/converse-stream` on
 * 127.0.0.1, verifying SigV4 like the real service (403 `InvalidSignatureException` /
 * `UnrecognizedClientException`), the conversation rules (400 `ValidationException`) and the
 * thinking signatures it issued. Scenario tokens in the model id: see behaviour.ts.
 */
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { sleep, waitForAbort } from "../openai/timing.ts";
import { behaviourOf } from "./behaviour.ts";
import { cachePointsOf, planAnswer, validate } from "./conversation.ts";
import {
  converseResponse,
  converseStreamEvents,
  converseUsage,
  readConverseRequest,
} from "./converse.ts";
import { cacheMinimum, SimPromptCache } from "../prompt_cache.ts";
import { scriptedBody } from "./stream_body.ts";
import { loadSchemaDir, type Violation, violationsOf } from "../provider_rules.ts";
import { BOTH_SAMPLING_MESSAGE, refusesBothSampling } from "../anthropic_sampling.ts";
import { type SimCredentials, verifySigV4 } from "./sigv4_verify.ts";

const BEDROCK_SCHEMA = loadSchemaDir().get("bedrock")!.endpoints.chat!;

export interface BedrockRecordedRequest {
  path: string;
  modelId: string;
  stream: boolean;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** The usage object the simulator reported, when it answered. */
  usage?: Record<string, unknown>;
}

export interface BedrockSimulator {
  url: string;
  requests: BedrockRecordedRequest[];
  /**
   * Body fields outside `catalog/provider_schemas/bedrock.json` (what Bedrock does with them is
   * unknown, so they are only recorded).
   */
  violations: Violation[];
  reset(): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const ERROR_NAMES: Record<number, string> = {
  400: "ValidationException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  408: "ModelTimeoutException",
  424: "ModelErrorException",
  429: "ThrottlingException",
  500: "InternalServerException",
  503: "ServiceUnavailableException",
};

export function startBedrockSimulator(credentials: SimCredentials): BedrockSimulator {
  const requests: BedrockRecordedRequest[] = [];
  const violations: Violation[] = [];
  const closing = new AbortController();
  const cache = new SimPromptCache();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const match = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(url.pathname);
    if (req.method !== "POST" || match === null) {
      return errorResponse(404, "UnknownOperationException", "Not found.");
    }
    const raw = new Uint8Array(await req.arrayBuffer());
    const auth = verifySigV4(req.method, url, req.headers, raw, credentials);
    if (!auth.ok) {
      return errorResponse(403, auth.errorType, auth.message, "com.amazon.coral.service");
    }
    const modelId = decodeURIComponent(match[1] ?? "");
    const stream = match[2] === "converse-stream";
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      return errorResponse(400, "SerializationException", "Malformed JSON body.");
    }
    const record: BedrockRecordedRequest = {
      path: url.pathname,
      modelId,
      stream,
      headers: Object.fromEntries(req.headers),
      body,
    };
    requests.push(record);
    const signal = AbortSignal.any([req.signal, closing.signal]);
    const behaviour = behaviourOf(modelId);
    if (behaviour.slowMs > 0 && !(await sleep(behaviour.slowMs, signal))) {
      return new Response(null, { status: 499 });
    }
    if (behaviour.fail !== undefined) {
      const name = ERROR_NAMES[behaviour.fail] ?? "InternalServerException";
      return errorResponse(behaviour.fail, name, `Simulated ${name}.`);
    }
    violations.push(...violationsOf("bedrock", "chat", BEDROCK_SCHEMA, body));
    const inference = (body.inferenceConfig ?? {}) as Record<string, unknown>;
    if (
      refusesBothSampling(modelId) && inference.temperature !== undefined &&
      inference.topP !== undefined
    ) {
      return errorResponse(400, "ValidationException", BOTH_SAMPLING_MESSAGE);
    }
    const simRequest = readConverseRequest(body);
    const invalid = validate(simRequest);
    if (invalid !== undefined) return errorResponse(400, "ValidationException", invalid);
    const isAnthropic = /anthropic|claude/i.test(modelId);
    if (simRequest.thinking !== undefined && isAnthropic && simRequest.maxTokens === undefined) {
      return errorResponse(
        400,
        "ValidationException",
        "max_tokens is required when thinking is enabled.",
      );
    }
    const points = cachePointsOf(simRequest, modelId);
    const cached = points.length > 0 ? cache.use(points, cacheMinimum(modelId)) : undefined;
    const plan = planAnswer(simRequest, behaviour, "tooluse_", cached);
    if (!behaviour.noUsage) record.usage = converseUsage(plan);
    if (!stream) {
      if (behaviour.silentAfter !== undefined) {
        await waitForAbort(signal);
        return new Response(null, { status: 499 });
      }
      return Response.json(converseResponse(plan, behaviour.noUsage), {
        headers: { "x-amzn-requestid": crypto.randomUUID() },
      });
    }
    const frames = converseStreamEvents(plan, behaviour.noUsage).map(([type, payload]) =>
      eventFrame(type, payload)
    );
    const exception = exceptionFrame("modelStreamErrorException", {
      message: "Simulated stream failure.",
    });
    return new Response(scriptedBody(frames, behaviour, signal, exception), {
      headers: {
        "content-type": "application/vnd.amazon.eventstream",
        "x-amzn-requestid": crypto.randomUUID(),
      },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
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

export function eventFrame(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

export function exceptionFrame(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ":exception-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "exception" },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

function errorResponse(
  status: number,
  name: string,
  message: string,
  namespace = "com.amazon.bedrock",
): Response {
  return Response.json({ message }, {
    status,
    headers: {
      "x-amzn-errortype": `${name}:http://internal.amazon.com/coral/${namespace}/`,
      "x-amzn-requestid": crypto.randomUUID(),
    },
  });
}
