/**
 * The whole in-process path of a pass-through chat stream, one upstream event a read, as the
 * gateway runs it without its sockets: a byte `ReadableStream` read by `eventBatches` (BYOB)
 * with the pass-through decoder, the accounting, `chatStreamBody` with the chat encoder, and a
 * reader draining the client body. Where `stream_path_probe.ts` measures the decode, account
 * and encode steps alone, this one has the web streams and promises between them, which is
 * where a change to those steps can win or lose (docs/performance.md, "A streamed chunk stays
 * text").
 *
 *   taskset -c 0 deno run -A --config ROOT/deno.json scripts/bench/stream_pipe_probe.ts ROOT
 *
 * Prints process CPU per event (median of 7 rounds of 2,000 streams, 50 at a time) and the
 * bytes V8 allocated per event. Run two checkouts at once pinned to one core to compare them
 * on a loaded host: each round of one then shares the core with the other's.
 */
import process from "node:process";
import v8 from "node:v8";

const root = Deno.args[0] ?? new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const { openaiPassthroughDecoder } = await import(
  `${root}/src/providers/openai/passthrough_decoder.ts`
);
const { eventBatches } = await import(`${root}/src/providers/event_batches.ts`);
const { StreamAccounting } = await import(`${root}/src/canonical/stream_accounting.ts`);
const { ChatChunkEncoder } = await import(`${root}/src/api_formats/chat/chunk_encoder.ts`);
const { chatStreamBody } = await import(`${root}/src/api_formats/chat/stream_body.ts`);

const HEAD =
  `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-2024-08-06"`;
const WORDS = [" The", " harbour", " of", " Marseille", " is", " one", " of", " the", " oldest"];
const content = (i: number) =>
  `data: ${HEAD},"service_tier":"default","system_fingerprint":"fp_f9f4fb6dbf","choices":[{"index":0,"delta":{"content":"${
    WORDS[i % WORDS.length]
  }"},"logprobs":null,"finish_reason":null}],"usage":null}\n\n`;
const ROLE =
  `data: ${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
const TAIL = `data: ${HEAD},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n` +
  `data: ${HEAD},"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":50,"total_tokens":70}}\n\n` +
  "data: [DONE]\n\n";
const enc = new TextEncoder();
const reads = [ROLE, ...Array.from({ length: 50 }, (_, i) => content(i)), TAIL].map((e) =>
  enc.encode(e)
);

async function oneStream(): Promise<number> {
  let next = 0;
  const upstream = new ReadableStream({
    type: "bytes",
    pull(controller: ReadableByteStreamController) {
      const piece = reads[next++];
      const req = controller.byobRequest;
      if (piece === undefined) {
        controller.close();
        req?.respond(0);
        return;
      }
      if (req?.view) {
        const view = req.view as Uint8Array;
        view.set(piece);
        req.respond(piece.length);
      } else controller.enqueue(piece.slice());
    },
  });
  const batches = eventBatches(upstream, new AbortController().signal, openaiPassthroughDecoder());
  const accounting = new StreamAccounting();
  const body = chatStreamBody({
    async read() {
      const result = await batches.read();
      if (!result.done) { for (const item of result.value) accounting.observe(item); }
      return result;
    },
    cancel: () => {},
    finish() {},
  }, {
    encoder: new ChatChunkEncoder({ id: "x", created: 1, model: "m", excludeReasoning: false }),
    clientSignal: new AbortController().signal,
    requestId: "r",
    provider: "p",
  });
  const reader = body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
  }
  return bytes;
}

/** Bytes V8 allocated so far (Deno's `node:v8` has the field; its types do not). */
const allocatedBytes = () =>
  (v8.getHeapStatistics() as { total_allocated_bytes?: number }).total_allocated_bytes ?? NaN;

async function round(streams: number, parallel: number): Promise<number> {
  const start = process.cpuUsage();
  for (let s = 0; s < streams; s += parallel) {
    await Promise.all(Array.from({ length: parallel }, oneStream));
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (streams * reads.length);
}

await round(2000, 50);
const allocatedBefore = allocatedBytes();
await round(2000, 50);
const allocated = allocatedBytes() - allocatedBefore;
const rounds: number[] = [];
for (let r = 0; r < 7; r++) rounds.push(await round(2000, 50));
rounds.sort((a, b) => a - b);
console.log(JSON.stringify({
  root,
  cpu_us_per_event: +rounds[3]!.toFixed(2),
  allocated_bytes_per_event: Math.round(allocated / (2000 * reads.length)),
}));
