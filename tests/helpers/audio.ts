/**
 * Test helpers for the audio endpoints: WAV files of a known length, the committed tiny
 * fixtures (made once with ffmpeg, see tests/fixtures/audio/README.md), multipart bodies,
 * chunked and generated request streams, and a recording upstream on 127.0.0.1:0.
 */
import type { UpstreamCall } from "../../src/providers/adapter.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";
import { Model, providerSchema } from "../../src/catalog/schema.ts";
import { DIALECTS } from "../../src/providers/registry.ts";

/** A PCM16 WAV of exactly `round(seconds × sampleRate)` frames (a quiet 440 Hz tone). */
export function makeWav(
  { seconds, sampleRate = 8000, channels = 1 }: {
    seconds: number;
    sampleRate?: number;
    channels?: number;
  },
): Uint8Array<ArrayBuffer> {
  const frames = Math.round(seconds * sampleRate);
  const dataBytes = frames * channels * 2;
  const out = new Uint8Array(44 + dataBytes);
  const view = new DataView(out.buffer);
  const text = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  text(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  text(36, "data");
  view.setUint32(40, dataBytes, true);
  for (let f = 0; f < frames; f++) {
    const sample = Math.round(3000 * Math.sin((2 * Math.PI * 440 * f) / sampleRate));
    for (let c = 0; c < channels; c++) view.setInt16(44 + (f * channels + c) * 2, sample, true);
  }
  return out;
}

/** A committed fixture from tests/fixtures/audio/. */
export function readFixture(name: string): Promise<Uint8Array<ArrayBuffer>> {
  return Deno.readFile(new URL(`../fixtures/audio/${name}`, import.meta.url));
}

export interface FormPart {
  name: string;
  value: string | Uint8Array;
  filename?: string;
  contentType?: string;
}

const encoder = new TextEncoder();

/** Serialises parts as `multipart/form-data` with CRLF line ends. */
export function multipartBody(boundary: string, parts: readonly FormPart[]): Uint8Array {
  const pieces: Uint8Array[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += "\r\n";
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    pieces.push(encoder.encode(`${head}\r\n`));
    pieces.push(typeof part.value === "string" ? encoder.encode(part.value) : part.value);
    pieces.push(encoder.encode("\r\n"));
  }
  pieces.push(encoder.encode(`--${boundary}--\r\n`));
  return concat(pieces);
}

export function concat(pieces: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of pieces) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Streams `bytes` in fresh chunks of `size` bytes. */
export function chunkedStream(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

/**
 * A body of `head`, then `fillBytes` zero bytes made on demand in 64 KiB chunks, then
 * `tail`. `state.cancelled` tells whether the reader cancelled it; `state.sent` counts.
 */
export function generatedStream(head: Uint8Array, fillBytes: number, tail: Uint8Array) {
  const state = { cancelled: false, sent: 0 };
  const chunk = 64 * 1024;
  let phase: "head" | "fill" | "tail" | "done" = "head";
  let filled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      let next: Uint8Array;
      if (phase === "head") {
        next = head;
        phase = "fill";
      } else if (phase === "fill" && filled < fillBytes) {
        next = new Uint8Array(Math.min(chunk, fillBytes - filled));
        filled += next.length;
      } else if (phase !== "done") {
        next = tail;
        phase = "done";
      } else {
        return controller.close();
      }
      state.sent += next.length;
      controller.enqueue(next);
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * A tiny upstream on 127.0.0.1:0 that records each request and answers with `respond`.
 * `baseUrl` ends in `/v1`, like a catalog provider's.
 */
export function recordingUpstream(respond: (request: RecordedRequest) => Response) {
  const received: RecordedRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const recorded: RecordedRequest = {
      method: req.method,
      path: new URL(req.url).pathname,
      headers: req.headers,
      body: new Uint8Array(await req.arrayBuffer()),
    };
    received.push(recorded);
    return respond(recorded);
  });
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    received,
    close: () => server.shutdown(),
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** An `UpstreamCall` for an openai-dialect provider at `baseUrl`, key env `TEST_KEY`. */
export function openaiCall(
  baseUrl: string,
  upstreamModel: string,
  options: { kind?: Model["kind"]; unsupported?: string[]; signal?: AbortSignal } = {},
): UpstreamCall {
  const provider = providerSchema(DIALECTS).parse({
    dialect: "openai",
    base_url: baseUrl,
    api_key_env: "TEST_KEY",
    unsupported_parameters: options.unsupported ?? [],
  });
  const route = { provider: "test", upstream_model: upstreamModel };
  const model = Model.parse({
    id: "test/model",
    kind: options.kind ?? "embedding",
    sovereignty: "strict",
    routes: [route],
  });
  const resolved: ResolvedRoute = {
    providerId: "test",
    provider,
    route,
    dialect: "openai",
    model,
  };
  return { route: resolved, signal: options.signal ?? new AbortController().signal };
}

export const TEST_ENV = { TEST_KEY: "sk-upstream-test" };
