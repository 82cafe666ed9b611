/**
 * Bedrock Runtime adapter: Converse and ConverseStream with SigV4. Credentials come from the
 * environment variables the catalog names (`provider.aws.*_env`), read through `deps.env`.
 */
import type { ChatRequest, ChatResult, ChatStreamEvent } from "../../canonical/chat.ts";
import type { ProviderAdapter, UpstreamCall } from "../adapter.ts";
import { isAnthropicFamily } from "../anthropic_messages/family.ts";
import { type EventBatches, eventBatches } from "../event_batches.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import { postUpstream } from "../transport/post_upstream.ts";
import { toConverseBody } from "./convert_request.ts";
import { fromConverseResponse } from "./convert_response.ts";
import { BedrockStreamConverter } from "./convert_stream.ts";
import { bedrockHttpFailure } from "./errors.ts";
import { EventStreamDecoder } from "./eventstream_decoder.ts";
import { type AwsCredentials, signBedrockRequest } from "./sign.ts";
import { ConverseResponse } from "./wire.ts";
import { readAnswer } from "../read_answer.ts";
import { settingsOf } from "../dialect_module.ts";
import { type AwsSettings, BEDROCK_SETTINGS } from "./settings.ts";

export interface BedrockDeps {
  env: (name: string) => string | undefined;
  fetch?: typeof fetch;
}

export function createBedrockAdapter(deps: BedrockDeps): ProviderAdapter {
  const doFetch = deps.fetch ?? fetch;

  async function send(
    request: ChatRequest,
    call: UpstreamCall,
    stream: boolean,
  ): Promise<Response> {
    const { route } = call;
    const aws = settingsOf(BEDROCK_SETTINGS, route.provider);
    if (aws === undefined) {
      throw new UpstreamFailure("auth", `Provider '${route.providerId}' has no AWS settings.`);
    }
    const credentials = credentialsFrom(aws, deps.env);
    const url =
      `${route.provider.base_url}/model/${encodeURIComponent(route.route.upstream_model)}/` +
      (stream ? "converse-stream" : "converse");
    const body = JSON.stringify(toConverseBody(request, route));
    const headers = await signBedrockRequest({
      url,
      body,
      region: aws.region,
      credentials,
      headers: {
        "content-type": "application/json",
        accept: stream ? "application/vnd.amazon.eventstream" : "application/json",
      },
    });
    return await postUpstream({
      url,
      headers,
      body,
      signal: call.signal,
      fetch: doFetch,
      failure: (response, text) =>
        bedrockHttpFailure(response.status, response.headers.get("x-amzn-errortype"), text),
    });
  }

  return {
    async chat(request: ChatRequest, call: UpstreamCall): Promise<ChatResult> {
      const response = await send(request, call, false);
      const parsed = await readAnswer(response, ConverseResponse, call.signal);
      return fromConverseResponse(parsed, isAnthropicFamily(call.route.route.upstream_model));
    },

    async chatStream(
      request: ChatRequest,
      call: UpstreamCall,
    ): Promise<EventBatches<ChatStreamEvent>> {
      const response = await send(request, call, true);
      if (response.body === null) {
        throw new UpstreamFailure("unavailable", "Bedrock sent an empty stream.");
      }
      const frames = new EventStreamDecoder();
      const converter = new BedrockStreamConverter(
        isAnthropicFamily(call.route.route.upstream_model),
      );
      return eventBatches(response.body, call.signal, {
        *push(chunk) {
          for (const frame of frames.push(chunk)) yield* converter.push(frame);
        },
        end() {
          frames.end();
          converter.end();
          return [];
        },
      });
    },
  };
}

function credentialsFrom(
  aws: AwsSettings,
  env: (name: string) => string | undefined,
): AwsCredentials {
  const accessKeyId = env(aws.access_key_id_env);
  const secretAccessKey = env(aws.secret_access_key_env);
  if (!accessKeyId || !secretAccessKey) {
    throw new UpstreamFailure(
      "auth",
      `AWS credentials are not set ('${aws.access_key_id_env}', '${aws.secret_access_key_env}').`,
    );
  }
  const sessionToken = aws.session_token_env === undefined ? undefined : env(aws.session_token_env);
  return sessionToken
    ? { accessKeyId, secretAccessKey, sessionToken }
    : { accessKeyId, secretAccessKey };
}
