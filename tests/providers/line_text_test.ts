/**
 * `LineText` against the plain way it replaces (each read decoded and fed to the SSE parser as
 * it comes): for random SSE bodies cut into random reads, the parser emits the same events at
 * the same reads. The bodies mix what a cut could get wrong: multi-byte characters split
 * across reads, invalid bytes, CR and CRLF line ends, a BOM, comments, `event`/`id` fields,
 * multi-line data, empty reads and lines longer than a read.
 */
import assert from "node:assert/strict";
import { createParser } from "eventsource-parser";
import { LineText } from "../../src/providers/line_text.ts";

/** A small seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const utf8 = new TextEncoder();

function body(next: () => number, lineEnd: () => string): Uint8Array {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const parts: Uint8Array[] = [];
  if (next() < 0.1) parts.push(new Uint8Array([0xef, 0xbb, 0xbf]));
  const events = 1 + Math.floor(next() * 12);
  for (let e = 0; e < events; e++) {
    const lines: string[] = [];
    if (next() < 0.1) lines.push(": keep-alive");
    if (next() < 0.1) lines.push("event: delta");
    if (next() < 0.1) lines.push(`id: ${e}`);
    const dataLines = next() < 0.15 ? 2 : 1;
    for (let d = 0; d < dataLines; d++) {
      const text = pick(["hello", "é€😀 ünï", "x".repeat(Math.floor(next() * 300)), "", "[DONE]"]);
      lines.push(`data: {"content":"${text}","n":${e}}`);
    }
    const end = lineEnd();
    parts.push(utf8.encode(lines.join(end) + end + end));
    if (next() < 0.05) parts.push(new Uint8Array([0xe2, 0x82])); // a cut-off character
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

function reads(bytes: Uint8Array, next: () => number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = next() < 0.05 ? 0 : 1 + Math.floor(next() * (next() < 0.5 ? 16 : 700));
    out.push(bytes.slice(at, at + size));
    at += size;
  }
  return out;
}

/** The events the parser emitted after each read, as text. */
function eventsPerRead(chunks: Uint8Array[], toText: (chunk: Uint8Array) => string): string[][] {
  const seen: string[] = [];
  const parser = createParser({
    onEvent: (m) => seen.push(JSON.stringify([m.event, m.id, m.data])),
  });
  return chunks.map((chunk) => {
    const text = toText(chunk);
    if (text !== "") parser.feed(text);
    return seen.splice(0);
  });
}

Deno.test("LineText — the parser emits the same events at the same reads as with each read fed whole", () => {
  const endings = [() => "\n", () => "\r\n", () => "\r"];
  for (let seed = 1; seed <= 600; seed++) {
    const next = random(seed);
    const ending = seed % 5 === 0 ? endings[1 + (seed % 2)]! : endings[0]!;
    const bytes = body(next, ending);
    const chunks = reads(bytes, next);
    // Each read is handed over in a buffer the next read reuses, as the upstream reader does.
    const buffer = new Uint8Array(1024);
    const reused = (chunk: Uint8Array) => {
      buffer.fill(0x2a);
      buffer.set(chunk);
      return buffer.subarray(0, chunk.length);
    };
    const plain = new TextDecoder();
    const expected = eventsPerRead(chunks, (c) => plain.decode(c, { stream: true }));
    const lines = new LineText();
    const actual = eventsPerRead(chunks, (c) => lines.push(reused(c)));
    assert.deepEqual(actual, expected, `seed ${seed}`);
  }
});

Deno.test("LineText — a read ending mid-line feeds its complete lines only; the rest comes with the next read", () => {
  const lines = new LineText();
  assert.equal(lines.push(utf8.encode('data: {"a":1}\n\ndata: {"b"')), 'data: {"a":1}\n\n');
  assert.equal(lines.push(utf8.encode(":2}")), "");
  assert.equal(lines.push(utf8.encode("\n\n")), 'data: {"b":2}\n\n');
  // A character cut by the read's end waits as bytes and decodes whole.
  const euro = utf8.encode("data: €\n\n");
  assert.equal(lines.push(euro.subarray(0, 7)), "");
  assert.equal(lines.push(euro.subarray(7)), "data: €\n\n");
});
