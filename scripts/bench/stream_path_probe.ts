/**
 * The stream pass-through's own JavaScript, measured without a server: what an open stream's
 * decoder and billing accounting keep on the heap, and the CPU of decoding, accounting and
 * encoding a stream (the part of a chunk's cost that is Sovra's code, not the sockets and web
 * streams around it). Deterministic enough to compare two checkouts on a loaded host:
 *
 *   deno run -A --v8-flags=--expose-gc scripts/bench/stream_path_probe.ts [ROOT]
 *
 * ROOT (default: this checkout) is any checkout with the same files, e.g. one extracted with
 * `git archive REV | tar -x -C DIR`; run it with `--config DIR/deno.json`.
 * CPU: a 50-chunk stream with usage, as one read (an instant upstream) and one event a read (a
 * model's pace), process CPU time per stream, median of 7 rounds of 2,000, measured first. Heap:
 * 1,000 streams each given a role chunk and 40 content chunks of one upstream's layout, all kept
 * open, two full collections, `heapUsed` after − before ÷ 1,000.
 */
import process from "node:process";

const root = Deno.args[0] ?? new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const { openaiPassthroughDecoder } = await import(
  `${root}/src/providers/openai/passthrough_decoder.ts`
);
const { StreamAccounting } = await import(`${root}/src/canonical/stream_accounting.ts`);
const { ChatChunkEncoder } = await import(`${root}/src/api_formats/chat/chunk_encoder.ts`);

const HEAD =
  `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-2024-08-06"`;
const WORDS = [
  "The",
  " harbour",
  " of",
  " Marseille",
  " is",
  " one",
  " of",
  " the",
  " oldest",
  " ports",
];
const content = (i: number) =>
  `data: ${HEAD},"service_tier":"default","system_fingerprint":"fp_f9f4fb6dbf","choices":[{"index":0,"delta":{"content":"${
    WORDS[i % WORDS.length]
  }"},"logprobs":null,"finish_reason":null}],"usage":null}\n\n`;
const ROLE =
  `data: ${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
const TAIL = `data: ${HEAD},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n` +
  `data: ${HEAD},"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":50,"total_tokens":70}}\n\n` +
  "data: [DONE]\n\n";

const encoder = new TextEncoder();
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("Run with --v8-flags=--expose-gc.");

interface Item {
  type: string;
}
interface Decoder {
  push(chunk: Uint8Array): Iterable<Item>;
  end(): Iterable<Item>;
}
interface Accounting {
  observe(item: Item): void;
}

function heapPerOpenStream(streams: number): number {
  gc!();
  gc!();
  const before = Deno.memoryUsage().heapUsed;
  const open: Array<[Decoder, Accounting]> = [];
  const buffer = new Uint8Array(2048);
  for (let s = 0; s < streams; s++) {
    const decoder: Decoder = openaiPassthroughDecoder();
    const accounting: Accounting = new StreamAccounting();
    for (let i = -1; i < 40; i++) {
      const { written } = encoder.encodeInto(i < 0 ? ROLE : content(i), buffer);
      for (const item of decoder.push(buffer.subarray(0, written))) accounting.observe(item);
    }
    open.push([decoder, accounting]);
  }
  gc!();
  gc!();
  const kept = Deno.memoryUsage().heapUsed - before;
  return open.length > 0 ? kept / streams : 0;
}

function stream(reads: readonly Uint8Array[]): number {
  const decoder: Decoder = openaiPassthroughDecoder();
  const accounting: Accounting = new StreamAccounting();
  const out = new ChatChunkEncoder({
    id: "chatcmpl-x",
    created: 1,
    model: "bench/chat",
    excludeReasoning: false,
  });
  let bytes = 0;
  for (const read of reads) {
    const items = [...decoder.push(read)];
    for (const item of items) accounting.observe(item);
    bytes += out.encodeBatch(items)?.length ?? 0;
  }
  for (const item of decoder.end()) accounting.observe(item);
  return bytes + out.end().length;
}

function cpuPerStream(reads: readonly Uint8Array[]): number {
  for (let i = 0; i < 3000; i++) stream(reads);
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const start = process.cpuUsage();
    for (let i = 0; i < 2000; i++) stream(reads);
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / 2000);
  }
  return rounds.sort((a, b) => a - b)[3]!;
}

const events = [ROLE, ...Array.from({ length: 50 }, (_, i) => content(i)), TAIL];
const oneRead = [encoder.encode(events.join(""))];
const eventARead = events.map((e) => encoder.encode(e));
// CPU first, on a fresh heap: after the heap phase V8 sizes its young generation by what that
// phase kept alive, which moved the CPU figures by up to 2× between builds that keep more or less.
const oneReadUs = cpuPerStream(oneRead);
const eventAReadUs = cpuPerStream(eventARead);
console.log(JSON.stringify({
  root,
  cpu_us_per_stream_one_read: +oneReadUs.toFixed(1),
  cpu_us_per_stream_event_a_read: +eventAReadUs.toFixed(1),
  heap_kib_per_open_stream_after_40_chunks: +(heapPerOpenStream(1000) / 1024).toFixed(2),
}));
