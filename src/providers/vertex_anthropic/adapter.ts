/**
 * Anthropic Messages on Vertex AI: `:rawPredict` / `:streamRawPredict` with
 * `anthropic_version: "vertex-2023-10-16"` in the body and no `model` there. Auth is an OAuth2
 * access token of the service account named by `provider.vertex.service_account_env`; a 401
 * drops the cached token and the call is retried once with a fresh one.
 */
import type { ChatRequest, ChatResult, ChatStreamEvent } from "../../canonical/chat.ts";
import type { ProviderAdapter, UpstreamCall } from "../adapter.ts";
import { toMessagesBody } from "../anthropic_messages/convert_request.ts";
import { fromAnthropicMessage } from "../anthropic_messages/convert_response.ts";
import { anthropicHttpFailure } from "../anthropic_messages/errors.ts";
import { type EventBatches, eventBatches } from "../event_batches.ts";
import { AnthropicMessage } from "../anthropic_messages/wire.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import { postUpstream } from "../transport/post_upstream.ts";
import { anthropicSseDecoder } from "./sse_decoder.ts";
import { readAnswer } from "../read_answer.ts";
import { settingsOf } from "../dialect_module.ts";
import { VERTEX_SETTINGS } from "./settings.ts";
import { createTokenSource, type TokenSource } from "./token_source.ts";

export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

export interface VertexAnthropicDeps {
  env: (name: string) => string | undefined;
  fetch?: typeof fetch;
  now?: () => number;
}

export function createVertexAnthropicAdapter(deps: VertexAnthropicDeps): ProviderAdapter {
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const sources = new Map<string, TokenSource>();

  function tokenSource(call: UpstreamCall): TokenSource {
    const vertex = settingsOf(VERTEX_SETTINGS, call.route.provider);
    if (vertex === undefined) {
      throw new UpstreamFailure(
        "auth",
        `Provider '${call.route.providerId}' has no Vertex settings.`,
      );
    }
    const json = deps.env(vertex.service_account_env);
    if (!json) {
      throw new UpstreamFailure(
        "auth",
        `The service account variable '${vertex.service_account_env}' is not set.`,
      );
    }
    const key = `${vertex.token_url}\n${json}`;
    let source = sources.get(key);
    if (source === undefined) {
      source = createTokenSource({
        serviceAccountJson: json,
        tokenUrl: vertex.token_url,
        envName: vertex.service_account_env,
        fetch: doFetch,
        now,
      });
      sources.set(key, source);
    }
    return source;
  }

  async function send(
    request: ChatRequest,
    call: UpstreamCall,
    stream: boolean,
  ): Promise<Response> {
    const { route } = call;
    const vertex = settingsOf(VERTEX_SETTINGS, route.provider);
    if (vertex === undefined) {
      throw new UpstreamFailure("auth", `Provider '${route.providerId}' has no Vertex settings.`);
    }
    const model = encodeURIComponent(route.route.upstream_model).replaceAll("%40", "@");
    const url =
      `${route.provider.base_url}/v1/projects/${encodeURIComponent(vertex.project)}/locations/` +
      `${encodeURIComponent(vertex.region)}/publishers/anthropic/models/${model}:` +
      (stream ? "streamRawPredict" : "rawPredict");
    const body = JSON.stringify({
      anthropic_version: VERTEX_ANTHROPIC_VERSION,
      ...toMessagesBody(request, route),
      ...(stream ? { stream: true } : {}),
    });
    const source = tokenSource(call);
    for (let attempt = 0;; attempt++) {
      const token = await source.token(call.signal);
      try {
        return await postUpstream({
          url,
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: stream ? "text/event-stream" : "application/json",
          },
          body,
          signal: call.signal,
          fetch: doFetch,
          failure: (response, text) => anthropicHttpFailure(response.status, text),
        });
      } catch (error) {
        // A token revoked early: one fresh grant, one retry.
        if (error instanceof UpstreamFailure && error.status === 401 && attempt === 0) {
          source.invalidate(token);
          continue;
        }
        throw error;
      }
    }
  }

  return {
    async chat(request: ChatRequest, call: UpstreamCall): Promise<ChatResult> {
      const response = await send(request, call, false);
      return fromAnthropicMessage(await readAnswer(response, AnthropicMessage, call.signal));
    },

    async chatStream(
      request: ChatRequest,
      call: UpstreamCall,
    ): Promise<EventBatches<ChatStreamEvent>> {
      const response = await send(request, call, true);
      if (response.body === null) {
        throw new UpstreamFailure("unavailable", "Vertex sent an empty stream.");
      }
      return eventBatches(response.body, call.signal, anthropicSseDecoder());
    },
  };
}
