/**
 * CPU of the byte-stable body (`src/providers/openai/stable_body.ts`) per request, for a chat
 * body of 0.4, 12 and 100 KB whose model id the route changes (the usual edit), beside
 * `JSON.stringify` of the same body (what re-serialising would cost, without its byte
 * stability). One process, the variants interleaved in rounds; median µs per call.
 *
 *   deno run -A scripts/bench/stable_body_probe.ts
 */
import { stableBody } from "../../src/providers/openai/stable_body.ts";

function chatBody(turns: number, words: number) {
  return {
    model: "acme/chat",
    messages: Array.from({ length: turns }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: "Summarise what the harbour master reported ".repeat(words) + i,
    })),
    max_tokens: 256,
    temperature: 0.7,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function perCall(f: () => unknown, calls: number): number {
  const start = performance.now();
  for (let i = 0; i < calls; i++) f();
  return (performance.now() - start) / calls * 1000;
}

for (const [turns, words] of [[2, 1], [40, 7], [200, 12]] as const) {
  const text = JSON.stringify(chatBody(turns, words), null, 1);
  const value = JSON.parse(text);
  const built = { ...value, model: "mistral-small-2503" };
  const calls = Math.max(50, Math.round(2_000_000 / text.length));
  const stable: number[] = [];
  const plain: number[] = [];
  for (let round = 0; round < 7; round++) {
    stable.push(perCall(() => stableBody(built, { text, value }), calls));
    plain.push(perCall(() => JSON.stringify(built), calls));
  }
  console.log(
    `${(text.length / 1024).toFixed(1)} KB: stableBody ${median(stable).toFixed(1)} µs, ` +
      `JSON.stringify ${median(plain).toFixed(1)} µs`,
  );
}
