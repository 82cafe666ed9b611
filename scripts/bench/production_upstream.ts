/**
 * The upstream of the production-shaped scenarios: an OpenAI chat-completions server that takes
 * as long as a model does. The answers are the openai simulator's own (its `handleChat` with an
 * instant model, so the bytes are exactly what the simulator sends); only the timing is this
 * server's, kept cheap because it runs on the load core beside the load generator and must not
 * be what limits the run:
 *
 * - a stream: status, headers, the role chunk and the first content chunk after `--first-ms`
 *   (300), then one content chunk every `--gap-ms` (25) until the answer's `--chunks` (40) are
 *   sent, and `--gap-ms` after the last one the finish chunk, the usage chunk and `[DONE]`
 *   (41 writes, 44 SSE events, 1.3 s);
 * - a non-stream answer: the whole JSON after `--answer-ms` (800).
 *
 * Each stream is a push `ReadableStream` written by its own timer; nothing else runs per chunk.
 *
 *   deno run -A scripts/bench/production_upstream.ts [--port 0] [--first-ms 300] [--gap-ms 25]
 *     [--chunks 40] [--answer-ms 800]
 *
 * Prints its base URL (ending in /v1) on stdout. Stops on SIGTERM/SIGINT.
 */
import { parseArgs } from "node:util";
import { handleChat } from "../simulator/openai/chat_handler.ts";
import type { RequestContext } from "../simulator/openai/context.ts";

export interface ProductionTiming {
  firstMs: number;
  gapMs: number;
  chunks: number;
  answerMs: number;
}

export const PRODUCTION_TIMING: ProductionTiming = {
  firstMs: 300,
  gapMs: 25,
  chunks: 40,
  answerMs: 800,
};

/** How long a stream lasts at the upstream: first chunk, then `chunks` gaps (the last is the end). */
export function streamSeconds(timing: ProductionTiming): number {
  return (timing.firstMs + timing.chunks * timing.gapMs) / 1000;
}

/**
 * The writes of a stream: the SSE events of the simulator's body grouped as the timing says.
 * `events` are `data: …\n\n` strings, role first, `[DONE]` last; `contentChunks` of them follow
 * the role chunk. Write 0 is the role and the first content chunk, write k the content chunk
 * k + 1, the last write everything after the content (finish, usage, `[DONE]`).
 */
export function groupWrites(events: readonly string[], contentChunks: number): string[] {
  const writes = [events.slice(0, 2).join("")];
  for (let i = 2; i <= contentChunks; i++) writes.push(events[i]!);
  writes.push(events.slice(contentChunks + 1).join(""));
  return writes;
}

/** Splits an SSE body into its events, each with its `\n\n`. */
export function splitEvents(body: string): string[] {
  return body.split("\n\n").filter((e) => e !== "").map((e) => `${e}\n\n`);
}

const encoder = new TextEncoder();

export function startProductionUpstream(
  timing: ProductionTiming,
  options: { port?: number } = {},
): { url: string; close: () => Promise<void> } {
  let seq = 0;
  const model = `bench+chunks-${timing.chunks}`;
  const handle = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") {
      return Response.json({ error: { message: "Not found.", type: "invalid_request_error" } }, {
        status: 404,
      });
    }
    const body = await req.json().catch(() => undefined) as Record<string, unknown> | undefined;
    const n = ++seq;
    const ctx: RequestContext = {
      seq: n,
      requestId: `req_prod${n}`,
      signal: () => req.signal,
    };
    // The answer is the simulator's for a model with exactly `chunks` content chunks, at once.
    const answer = await handleChat(
      body === undefined ? undefined : { ...body, model },
      ctx,
    );
    const stream = body?.stream === true;
    if (answer.status !== 200) return answer;
    const text = await answer.text();
    const headers = new Headers(answer.headers);
    if (!stream) {
      await delay(timing.answerMs, req.signal);
      return new Response(text, { status: 200, headers });
    }
    const writes = groupWrites(splitEvents(text), timing.chunks).map((w) => encoder.encode(w));
    await delay(timing.firstMs, req.signal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let next = 0;
    const out = new ReadableStream<Uint8Array>({
      start(controller) {
        const write = () => {
          controller.enqueue(writes[next++]!);
          if (next >= writes.length) controller.close();
          else timer = setTimeout(write, timing.gapMs);
        };
        write();
      },
      cancel() {
        clearTimeout(timer);
      },
    });
    return new Response(out, { status: 200, headers });
  };
  const server = Deno.serve(
    { port: options.port ?? 0, hostname: "127.0.0.1", onListen() {} },
    handle,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    close: () => server.shutdown(),
  };
}

/** Resolves after `ms`, or at once when the client left (the answer is then never read). */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      port: { type: "string", default: "0" },
      "first-ms": { type: "string", default: String(PRODUCTION_TIMING.firstMs) },
      "gap-ms": { type: "string", default: String(PRODUCTION_TIMING.gapMs) },
      chunks: { type: "string", default: String(PRODUCTION_TIMING.chunks) },
      "answer-ms": { type: "string", default: String(PRODUCTION_TIMING.answerMs) },
    },
  });
  const upstream = startProductionUpstream({
    firstMs: Number(values["first-ms"]),
    gapMs: Number(values["gap-ms"]),
    chunks: Number(values.chunks),
    answerMs: Number(values["answer-ms"]),
  }, { port: Number(values.port) });
  console.log(upstream.url);
  const stop = async () => {
    await upstream.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}
