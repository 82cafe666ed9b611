/**
 * `StreamText` decodes a byte stream read by read to exactly the text one decode of all its
 * bytes gives (byte-order marks kept), wherever the reads fall: inside a character, on invalid
 * bytes, with empty reads. And the SSE decoders built on it still drop the stream's leading
 * byte-order mark (the parser's job now) and keep one later in the stream.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { StreamText } from "../../src/util/stream_text.ts";
import { openaiSseDecoder } from "../../src/providers/openai/convert_stream.ts";
import { anthropicSseDecoder } from "../../src/providers/vertex_anthropic/sse_decoder.ts";

const BOM = [0xef, 0xbb, 0xbf];

/** Bytes: ASCII, whole and cut characters of every length, invalid bytes, marks. */
const bytesArb = fc.array(
  fc.oneof(
    fc.constantFrom([0x41], [0x0a], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80]),
    fc.constantFrom(BOM, [0xc3], [0xe2, 0x82], [0xf0, 0x9f], [0x80], [0xff], [0xed, 0xa0, 0x80]),
  ),
  { maxLength: 30 },
).map((parts) => new Uint8Array(parts.flat()));

function inReads(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const reads: Uint8Array[] = [];
  let at = 0;
  for (const cut of cuts) {
    const end = Math.min(bytes.length, at + cut);
    reads.push(bytes.subarray(at, end));
    at = end;
  }
  reads.push(bytes.subarray(at));
  return reads;
}

Deno.test("StreamText gives one decode's text however the reads fall", () => {
  fc.assert(
    fc.property(
      bytesArb,
      fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 20 }),
      (bytes, cuts) => {
        const text = new StreamText();
        let out = "";
        for (const read of inReads(bytes, cuts)) out += text.decode(read);
        out += text.end();
        assert.equal(out, new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes));
      },
    ),
    { numRuns: 3_000 },
  );
});

const sseBytes = (text: string, bom: boolean) => {
  const body = new TextEncoder().encode(text);
  return bom ? new Uint8Array([...BOM, ...body]) : body;
};

Deno.test("the openai SSE decoder drops a leading byte-order mark and keeps a later one", () => {
  const chunk = (content: string) =>
    `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}}}]}\n\n`;
  const stream = sseBytes(chunk("\uFEFFa") + chunk("b") + "data: [DONE]\n\n", true);
  for (const size of [1, 2, 3, 4, stream.length]) {
    const decoder = openaiSseDecoder();
    const texts: string[] = [];
    for (const read of inReads(stream, Array(stream.length).fill(size))) {
      for (const event of decoder.push(read)) {
        if (event.type === "text-delta") texts.push(event.text);
      }
    }
    assert.deepEqual(texts, ["\uFEFFa", "b"], `reads of ${size}`);
  }
});

Deno.test("the anthropic SSE decoder drops a leading byte-order mark", () => {
  const stream = sseBytes(
    `event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":3,"output_tokens":0}}}\n\n` +
      `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n` +
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n`,
    true,
  );
  for (const size of [1, 2, stream.length]) {
    const decoder = anthropicSseDecoder();
    const texts: string[] = [];
    for (const read of inReads(stream, Array(stream.length).fill(size))) {
      for (const event of decoder.push(read)) {
        if (event.type === "text-delta") texts.push(event.text);
      }
    }
    assert.deepEqual(texts, ["Hi"], `reads of ${size}`);
  }
});
