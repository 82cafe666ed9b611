/**
 * What a provider adapter offers the routing loop. Each dialect folder (`openai/`, `bedrock/`,
 * `vertex_anthropic/`, `riva_tts/`) builds one `ProviderAdapter` (`createAdapter` in its
 * `dialect.ts`).
 *
 * Every method throws an `UpstreamFailure` for a failure before the answer starts. A stream
 * that breaks later errors its ReadableStream (with an `UpstreamFailure` as reason).
 * `signal` aborts the upstream fetch (client disconnect, idle cut).
 */
import type { ChatRequest, ChatResult, ChatStreamEvent } from "../canonical/chat.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { Usage } from "../canonical/usage.ts";
import type { PassthroughItem } from "../canonical/forwarded_chunk.ts";
import type { EventBatches } from "./event_batches.ts";

export interface UpstreamCall {
  route: ResolvedRoute;
  signal: AbortSignal;
}

export interface EmbeddingsRequest {
  model: string;
  /** The client's body minus `model`, forwarded unchanged (input, encoding_format, dimensions …). */
  body: Record<string, unknown>;
}

export interface EmbeddingsResult {
  /** The upstream's JSON body, `model` still the upstream's. */
  body: Record<string, unknown>;
  usage: Usage | undefined;
}

export interface TranscriptionRequest {
  audio: Uint8Array;
  /** A generated file name with a safe extension (never the client's). */
  fileName: string;
  mimeType: string;
  fields: {
    language?: string;
    prompt?: string;
    temperature?: string;
    responseFormat: "json" | "text";
  };
}

export interface TranscriptionResult {
  /** The upstream's answer as the client asked for it (`json` body text or plain text). */
  body: string;
  contentType: string;
}

export interface SpeechRequest {
  input: string;
  voice: string;
  responseFormat: string;
}

export interface SpeechResult {
  audio: ReadableStream<Uint8Array>;
  contentType: string;
}

export interface ProviderAdapter {
  chat(request: ChatRequest, call: UpstreamCall): Promise<ChatResult>;
  /**
   * Starts a stream. Resolves once the upstream accepted the request; the events follow in
   * batches, one per upstream read (see `event_batches.ts`). The reader is
   * pull-based: the upstream is read no further ahead than its consumer.
   */
  chatStream(request: ChatRequest, call: UpstreamCall): Promise<EventBatches<ChatStreamEvent>>;
  /**
   * `chatStream` for a chat-completions client in this adapter's own dialect that needs nothing
   * changed but the chunks' head: chunks that need no change reach the client as the upstream
   * sent them (`ForwardedChunk`), the rest as canonical events. Only the `openai` dialect has it.
   */
  chatPassthrough?(
    request: ChatRequest,
    call: UpstreamCall,
  ): Promise<EventBatches<PassthroughItem>>;
  embeddings?(request: EmbeddingsRequest, call: UpstreamCall): Promise<EmbeddingsResult>;
  transcription?(request: TranscriptionRequest, call: UpstreamCall): Promise<TranscriptionResult>;
  speech?(request: SpeechRequest, call: UpstreamCall): Promise<SpeechResult>;
}

/** The adapter of each upstream dialect, by dialect id (`registry.ts` `createAdapters`). */
export type AdapterRegistry = Readonly<Record<string, ProviderAdapter>>;
