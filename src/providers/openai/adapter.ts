/** The `openai`-dialect adapter: Mistral, Scaleway, OVHcloud, IONOS, STACKIT, … */
import type { ProviderAdapter, UpstreamCall } from "../adapter.ts";
import type { ChatRequest } from "../../canonical/chat.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import { convertRequest } from "./convert_request.ts";
import { convertResponse } from "./convert_response.ts";
import { openaiSseDecoder } from "./convert_stream.ts";
import { openaiPassthroughDecoder } from "./passthrough_decoder.ts";
import { eventBatches } from "../event_batches.ts";
import { authHeaders, endpointUrl, sendUpstream } from "./http.ts";
import { WireChatCompletion } from "./wire.ts";
import { readAnswer } from "../read_answer.ts";
import { openaiEmbeddings } from "./embeddings.ts";
import { openaiTranscription } from "./transcription.ts";
import { openaiSpeech } from "./speech.ts";
import { stableBody } from "./stable_body.ts";

export interface OpenAIAdapterDeps {
  /** Reads a credential by env var name (never Deno.env directly). */
  secret: (name: string) => string | undefined;
  fetch?: typeof fetch;
}

export function createOpenAIAdapter(deps: OpenAIAdapterDeps): ProviderAdapter {
  const http = { env: deps.secret, ...(deps.fetch ? { fetch: deps.fetch } : {}) };
  const postChat = (call: UpstreamCall, request: ChatRequest, accept: string) =>
    sendUpstream(call, http, endpointUrl(call, "/chat/completions"), {
      headers: { ...authHeaders(call, http), "content-type": "application/json", accept },
      body: stableBody(convertRequest(request, call.route), request.clientBody),
    });

  const postStream = async (call: UpstreamCall, request: ChatRequest) => {
    const response = await postChat(call, { ...request, stream: true }, "text/event-stream");
    if (!response.body) throw new UpstreamFailure("unavailable", "The provider sent no stream.");
    return response.body;
  };

  return {
    async chat(request: ChatRequest, call: UpstreamCall) {
      const response = await postChat(call, { ...request, stream: false }, "application/json");
      return convertResponse(await readAnswer(response, WireChatCompletion, call.signal));
    },

    async chatStream(request: ChatRequest, call: UpstreamCall) {
      const body = await postStream(call, request);
      return eventBatches(body, call.signal, openaiSseDecoder());
    },

    async chatPassthrough(request: ChatRequest, call: UpstreamCall) {
      const body = await postStream(call, request);
      return eventBatches(body, call.signal, openaiPassthroughDecoder());
    },

    embeddings: (request, call) => openaiEmbeddings(request, call, http),
    transcription: (request, call) => openaiTranscription(request, call, http),
    speech: (request, call) => openaiSpeech(request, call, http),
  };
}
