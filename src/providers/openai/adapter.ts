/** The `openai`-dialect adapter: Mistral, Scaleway, OVHcloud, IONOS, STACKIT, … */
import type { ProviderAdapter, ResolvedRoute, UpstreamCall } from "../adapter.ts";
import type { ChatRequest } from "../../canonical/chat.ts";
import { connectFailure, UpstreamFailure } from "../upstream_failure.ts";
import { convertRequest } from "./convert_request.ts";
import { convertResponse } from "./convert_response.ts";
import { convertStream } from "./convert_stream.ts";
import { failureFromResponse } from "./errors.ts";
import { WireChatCompletion } from "./wire.ts";
import { openaiEmbeddings } from "./embeddings.ts";
import { openaiTranscription } from "./transcription.ts";
import { openaiSpeech } from "./speech.ts";

export interface OpenAIAdapterDeps {
  /** Reads a credential by env var name (never Deno.env directly). */
  secret: (name: string) => string | undefined;
  fetch?: typeof fetch;
}

export function authHeaders(
  route: ResolvedRoute,
  secret: OpenAIAdapterDeps["secret"],
): Record<string, string> {
  const envName = route.provider.api_key_env;
  const key = envName ? secret(envName) : undefined;
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** POSTs JSON upstream; a non-2xx answer or a connect error becomes an UpstreamFailure. */
export async function postJson(
  doFetch: typeof fetch,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Response> {
  let response: Response;
  try {
    response = await doFetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw connectFailure(error);
  }
  if (!response.ok) throw await failureFromResponse(response);
  return response;
}

export function createOpenAIAdapter(deps: OpenAIAdapterDeps): ProviderAdapter {
  const doFetch = deps.fetch ?? fetch;
  const url = (call: UpstreamCall, path: string) => `${call.route.provider.base_url}${path}`;
  const nonChat = { env: deps.secret, fetch: doFetch };

  return {
    async chat(request: ChatRequest, call: UpstreamCall) {
      const response = await postJson(
        doFetch,
        url(call, "/chat/completions"),
        convertRequest({ ...request, stream: false }, call.route),
        authHeaders(call.route, deps.secret),
        call.signal,
      );
      let json: unknown;
      try {
        json = await response.json();
      } catch (error) {
        if (call.signal.aborted) throw error;
        throw new UpstreamFailure("unavailable", "The provider sent a malformed answer.", {
          cause: error,
        });
      }
      const parsed = WireChatCompletion.safeParse(json);
      if (!parsed.success) {
        throw new UpstreamFailure("unavailable", "The provider's answer has an unexpected shape.");
      }
      return convertResponse(parsed.data);
    },

    async chatStream(request: ChatRequest, call: UpstreamCall) {
      const response = await postJson(
        doFetch,
        url(call, "/chat/completions"),
        convertRequest({ ...request, stream: true }, call.route),
        { ...authHeaders(call.route, deps.secret), accept: "text/event-stream" },
        call.signal,
      );
      if (!response.body) throw new UpstreamFailure("unavailable", "The provider sent no stream.");
      return convertStream(response.body);
    },

    embeddings: (request, call) => openaiEmbeddings(request, call, nonChat),
    transcription: (request, call) => openaiTranscription(request, call, nonChat),
    speech: (request, call) => openaiSpeech(request, call, nonChat),
  };
}
