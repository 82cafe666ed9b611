/**
 * StreamAccounting.release: once a stream's settle has what it needs, the generated text (for a
 * forwarded chunk, a slice of its whole upstream read) is let go, while the usage and finish
 * reason the settle already read stay.
 */
import assert from "node:assert/strict";
import { StreamAccounting } from "../../src/canonical/stream_accounting.ts";
import type { ForwardedChunk } from "../../src/canonical/forwarded_chunk.ts";
import type { ChatStreamEvent } from "../../src/canonical/chat.ts";

function forwarded(text: string): ForwardedChunk {
  const events: ChatStreamEvent[] = [{ type: "text-delta", text }];
  return {
    type: "forwarded",
    rest: `,"choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}}}]}`,
    decoded: false,
    events: () => events,
  };
}

Deno.test("stream accounting — release drops the generated text, keeps usage and finish reason", () => {
  const accounting = new StreamAccounting();
  accounting.observe({ type: "text-delta", text: "Hello, " });
  accounting.observe(forwarded("world"));
  accounting.observe({ type: "usage", usage: { promptTokens: 3, completionTokens: 2 } });
  accounting.observe({ type: "finish", reason: "stop", raw: "stop" });
  assert.equal(accounting.generatedText(), "Hello, world");

  accounting.release();

  assert.equal(accounting.generatedText(), "");
  assert.equal(accounting.usage?.promptTokens, 3);
  assert.equal(accounting.usage?.completionTokens, 2);
  assert.equal(accounting.finishReason, "stop");
  assert.equal(accounting.events, 4);
});

Deno.test("stream accounting — a forwarded chunk that carries its text is kept as that text, never decoded", () => {
  const accounting = new StreamAccounting();
  const shaped: ForwardedChunk = {
    type: "forwarded",
    rest: ',"choices":[{"index":0,"delta":{"content":"harbour "}}]}',
    decoded: false,
    text: "harbour ",
    events: () => {
      throw new Error("a chunk with its text is not decoded");
    },
  };
  accounting.observe(forwarded("The "));
  accounting.observe(shaped);
  accounting.observe(forwarded("of Marseille"));
  assert.equal(accounting.generatedText(), "The harbour of Marseille");
  assert.equal(accounting.events, 3);
});
