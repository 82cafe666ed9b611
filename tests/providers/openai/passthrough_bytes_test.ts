/**
 * The pass-through's byte path: an event of the learnt shape with an ASCII body that a read
 * holds whole is taken from the read's bytes (`ForwardedChunk.bytes`), not decoded to text.
 * It must give what the text path gives for the same event: checked by feeding the same stream
 * in reads of every layout against one byte a read (no event is ever whole in a read then, so
 * everything takes the text path): the same items (rest, text, events), the same client bytes
 * and the same text for billing. The reads go through one reused buffer, overwritten after each
 * pull, as the upstream reader's BYOB buffer is: what the encoder and the accounting keep must
 * be their own copies.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { PassthroughItem } from "../../../src/canonical/forwarded_chunk.ts";
import { StreamAccounting } from "../../../src/canonical/stream_accounting.ts";
import { ChatChunkEncoder } from "../../../src/api_formats/chat/chunk_encoder.ts";
import { openaiPassthroughDecoder } from "../../../src/providers/openai/passthrough_decoder.ts";

const HEAD =
  `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4o-2024-08-06"`;
const ROLE = `${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`;
const PREFIX = ',"choices":[{"index":0,"delta":{"content":"';
const SUFFIX = '"},"logprobs":null,"finish_reason":null}],"usage":null}';
const FINISH = `${HEAD},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`;
const USAGE =
  `${HEAD},"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12}}`;

interface Seen {
  items: Array<{ rest?: string; text?: string | undefined; events: unknown; bytes: boolean }>;
  client: Uint8Array;
  generated: string;
}

/** The stream's bytes in reads of `sizes` (then the rest), through one reused buffer. */
function run(stream: Uint8Array, sizes: readonly number[]): Seen {
  const decoder = openaiPassthroughDecoder();
  const encoder = new ChatChunkEncoder({
    id: "chatcmpl-x",
    created: 1,
    model: "acme/chat",
    excludeReasoning: false,
  });
  const accounting = new StreamAccounting();
  const buffer = new Uint8Array(stream.length);
  const seen: Seen["items"] = [];
  const out: Uint8Array[] = [];
  let at = 0;
  let next = 0;
  while (at < stream.length) {
    const size = Math.min(sizes[next++] ?? stream.length, stream.length - at);
    buffer.set(stream.subarray(at, at + size));
    at += size;
    const items: PassthroughItem[] = [...decoder.push(buffer.subarray(0, size))];
    for (const item of items) {
      accounting.observe(item);
      seen.push(
        item.type === "forwarded"
          ? { rest: item.rest, text: item.text, events: item.events(), bytes: !!item.bytes }
          : { events: [item], bytes: false },
      );
    }
    const bytes = encoder.encodeBatch(items);
    if (bytes) out.push(bytes);
    // The next read overwrites the buffer.
    buffer.fill(0x41);
  }
  for (const item of decoder.end()) accounting.observe(item);
  out.push(encoder.end());
  const client = new Uint8Array(out.reduce((n, b) => n + b.length, 0));
  let o = 0;
  for (const b of out) {
    client.set(b, o);
    o += b.length;
  }
  return { items: seen, client, generated: accounting.generatedText() };
}

const sse = (chunks: readonly string[]) => chunks.map((c) => `data: ${c}\n\n`).join("");

/** Bodies: plain words, one-word keys (no shape), escapes and non-ASCII (the text path). */
const bodyArb = fc.oneof(
  fc.constantFrom("The", " harbour", " of", " Marseille", " é", " 😀", "usage", "a\\nb", " 42."),
  fc.string({ unit: fc.constantFrom("a", "B", " ", "_", ".", "é", "\\\\"), maxLength: 8 }),
);

Deno.test("shaped chunks whole in a read go out as their bytes, exactly as the text path sends them", () => {
  let byBytes = 0;
  fc.assert(
    fc.property(
      fc.array(bodyArb, { minLength: 1, maxLength: 12 }),
      // No sizes: the whole stream in one read.
      fc.oneof(
        fc.constant([]),
        fc.array(fc.integer({ min: 1, max: 600 }), { maxLength: 8 }),
        fc.array(fc.integer({ min: 100, max: 300 }), { maxLength: 12 }),
      ),
      fc.boolean(),
      (bodies, sizes, crlf) => {
        const chunks = [ROLE, ...bodies.map((b) => HEAD + PREFIX + b + SUFFIX), FINISH, USAGE];
        let text = sse(chunks) + "data: [DONE]\n\n";
        // An upstream that ends its lines with CR LF never takes the byte path.
        if (crlf) text = text.replaceAll("\n", "\r\n");
        const stream = new TextEncoder().encode(text);
        const whole = run(stream, sizes);
        const byteByByte = run(stream, Array.from(stream, () => 1));
        assert.ok(byteByByte.items.every((item) => !item.bytes));
        const plain = (seen: Seen) => seen.items.map(({ bytes: _, ...item }) => item);
        assert.deepEqual(plain(whole), plain(byteByByte));
        assert.deepEqual(whole.client, byteByByte.client);
        assert.equal(whole.generated, byteByByte.generated);
        if (whole.items.some((item) => item.bytes)) byBytes++;
      },
    ),
    { numRuns: 1_500 },
  );
  assert.ok(byBytes > 1_500 / 10, `${byBytes} streams took the byte path`);
});

Deno.test("a stream read one event a read takes every plain content chunk after the first as bytes", () => {
  const words = ["The", " harbour", " of", " Marseille", " is", " old."];
  const events = [ROLE, ...words.map((w) => HEAD + PREFIX + w + SUFFIX), FINISH, USAGE]
    .map((c) => new TextEncoder().encode(sse([c])));
  const seen = run(
    new TextEncoder().encode(
      events.map((e) => new TextDecoder().decode(e)).join("") +
        "data: [DONE]\n\n",
    ),
    events.map((e) => e.length),
  );
  // The first content chunk (it teaches the shape; the role chunk is no item), then bytes;
  // the finish and usage chunks are parsed.
  assert.deepEqual(seen.items.map((item) => item.bytes), [
    false,
    true,
    true,
    true,
    true,
    true,
    false,
    false,
  ]);
  assert.equal(seen.generated, words.join(""));
});
