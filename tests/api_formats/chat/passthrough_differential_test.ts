/**
 * The stream pass-through against the ordinary (re-encoding) chat stream path, on the same
 * upstream bytes. Both run through the real pieces: the `openai` SSE decoder
 * (ordinary or pass-through) behind `eventBatches`, the stream accounting, the chat encoder and
 * `chatStreamBody`. For every stream, whole and split at every byte boundary (and byte by byte):
 *
 * - each path writes the same bytes however the upstream's reads fall;
 * - the client reads the same answer from both (the canonical events a client decoder gets),
 *   every chunk under the gateway's own head (id, created, `model` = the catalog id);
 * - every chunk of the pass-through is either the ordinary path's own chunk or an upstream
 *   chunk byte for byte behind that head — and where the upstream writes chunks exactly as the
 *   gateway's encoder does, the two paths' bytes are identical;
 * - both end the same way (clean with `[DONE]`, or a dropped connection) with the same outcome;
 * - billing is the same: usage, the text an estimate counts after every prefix of the upstream
 *   bytes (a client that leaves there), and the settled usage and cost of the whole stream;
 * - the router's tool-loop pins read the same tool-call ids from both (the ids the client gets).
 */
import assert from "node:assert/strict";
import { createParser } from "eventsource-parser";
import type { ChatStreamEvent } from "../../../src/canonical/chat.ts";
import type { PassthroughItem } from "../../../src/canonical/forwarded_chunk.ts";
import { KEPT_CHUNK_CHARS, StreamAccounting } from "../../../src/canonical/stream_accounting.ts";
import { eventBatches, type StreamDecoder } from "../../../src/providers/event_batches.ts";
import { openaiSseDecoder } from "../../../src/providers/openai/convert_stream.ts";
import { openaiPassthroughDecoder } from "../../../src/providers/openai/passthrough_decoder.ts";
import { ChatChunkEncoder } from "../../../src/api_formats/chat/chunk_encoder.ts";
import { chatStreamBody } from "../../../src/api_formats/chat/stream_body.ts";
import { billableUsage } from "../../../src/pipeline/billable_usage.ts";
import { costMicroEur } from "../../../src/billing/cost.ts";
import { collectToolCallIds } from "../../../src/smart_router/stream_tool_calls.ts";
import { startOpenAISimulator } from "../../../scripts/simulator/openai/mod.ts";
import { sseData } from "../../helpers/sse.ts";
import { FIXTURES, generatedStreams, type UpstreamStream } from "./passthrough_streams.ts";

type Path = "ordinary" | "passthrough";

const CTX = {
  id: "chatcmpl-test",
  created: 1700000000,
  model: "acme/chat",
  excludeReasoning: false,
};
const HEAD =
  `{"id":"chatcmpl-test","object":"chat.completion.chunk","created":1700000000,"model":"acme/chat"`;
const ROLE_CHUNK =
  `${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null,"logprobs":null}]}`;
const MESSAGES = [{ role: "user" as const, content: "Tell me about the harbour" }];
const PRICING = {
  prompt_micro_eur_per_million: 1_000_000,
  completion_micro_eur_per_million: 3_000_000,
};

const decoderOf = (path: Path): StreamDecoder<PassthroughItem> =>
  path === "ordinary" ? openaiSseDecoder() : openaiPassthroughDecoder();

interface Run {
  text: string;
  clean: boolean;
  outcome: string | undefined;
  forwarded: number;
  accounting: StreamAccounting;
  /** What a router pins the answer's tool loop by. */
  toolCallIds: string[];
}

/** Upstream bytes in the given reads → what the client receives, through the real body. */
async function run(path: Path, reads: readonly Uint8Array[]): Promise<Run> {
  let next = 0;
  const upstream = new ReadableStream({
    type: "bytes",
    pull(controller: ReadableByteStreamController) {
      const piece = reads[next++];
      if (piece !== undefined) return controller.enqueue(piece.slice());
      controller.close();
      controller.byobRequest?.respond(0); // ends the BYOB read that waits
    },
  });
  const reader = eventBatches(upstream, new AbortController().signal, decoderOf(path));
  const accounting = new StreamAccounting();
  let outcome: string | undefined;
  let forwarded = 0;
  const toolCallIds: string[] = [];
  const body = chatStreamBody({
    async read() {
      const result = await reader.read();
      if (!result.done) {
        for (const item of result.value) {
          accounting.observe(item);
          collectToolCallIds(item, toolCallIds);
          if (item.type === "forwarded") forwarded++;
        }
      }
      return result;
    },
    cancel: (reason) => void reader.cancel(reason).catch(() => {}),
    finish(o) {
      outcome ??= o;
    },
  }, {
    encoder: new ChatChunkEncoder(CTX),
    clientSignal: new AbortController().signal,
    requestId: "req_test",
    provider: "test",
  });
  const client = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let clean = true;
  try {
    for (;;) {
      const { done, value } = await client.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    clean = false;
  }
  return { text, clean, outcome, forwarded, accounting, toolCallIds };
}

/** The canonical events a client decoder reads from the gateway's bytes. */
function clientEvents(text: string): ChatStreamEvent[] {
  const decoder = openaiSseDecoder();
  const out: ChatStreamEvent[] = [];
  try {
    for (const event of decoder.push(new TextEncoder().encode(text))) out.push(event);
    for (const event of decoder.end()) out.push(event);
  } catch {
    // a dropped stream: what arrived before the drop is what the client has
  }
  return out;
}

function upstreamData(text: string): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (m) => data.push(m.data) });
  parser.feed(text);
  return data;
}

/** True when `head` is an upstream's four-member chunk head. */
function isUpstreamHead(head: string): boolean {
  try {
    const parsed = JSON.parse(`${head}}`);
    return Object.keys(parsed).join() === "id,object,created,model";
  } catch {
    return false;
  }
}

/** Billing inputs after the upstream sent only `prefix` (the client left there). */
function billingAfter(path: Path, prefix: Uint8Array) {
  const decoder = decoderOf(path);
  const accounting = new StreamAccounting();
  try {
    for (const item of decoder.push(prefix)) accounting.observe(item);
  } catch {
    // the stream failed: billed for what came before the failure
  }
  return { usage: accounting.usage, text: accounting.generatedText() };
}

async function settled(accounting: StreamAccounting) {
  const usage = await billableUsage(MESSAGES, accounting.usage, () => accounting.generatedText());
  return { usage, cost: costMicroEur(PRICING, usage) };
}

/** One read per SSE event, as a streaming upstream sends them. */
function eventWise(text: string): Uint8Array[] {
  const encoder = new TextEncoder();
  return text.split(/(?<=\r\n\r\n|\n\n|\r\r)/).filter((p) => p !== "").map((p) =>
    encoder.encode(p)
  );
}

function splits(bytes: Uint8Array, everyBoundary: boolean): Uint8Array[][] {
  const out: Uint8Array[][] = [[...bytes].map((b) => Uint8Array.of(b))];
  const step = everyBoundary ? 1 : Math.max(1, Math.floor(bytes.length / 23));
  for (let i = 1; i < bytes.length; i += step) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  for (const size of [2, 3, 7, 64]) {
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
    out.push(pieces);
  }
  return out;
}

async function checkStream(stream: UpstreamStream, everyBoundary: boolean): Promise<Run> {
  const bytes = new TextEncoder().encode(stream.text);
  const ordinary = await run("ordinary", [bytes]);
  const fast = await run("passthrough", [bytes]);
  const label = stream.name;

  // Same end, same outcome.
  assert.equal(fast.clean, ordinary.clean, `${label}: clean end`);
  assert.equal(fast.outcome, ordinary.outcome, `${label}: outcome`);
  assert.equal(fast.text.endsWith("data: [DONE]\n\n"), ordinary.text.endsWith("data: [DONE]\n\n"));

  // The same answer, every chunk under the gateway's head.
  assert.deepEqual(clientEvents(fast.text), clientEvents(ordinary.text), `${label}: answer`);
  const cut = (
    text: string,
    clean: boolean,
  ) => (clean ? text : text.slice(0, text.lastIndexOf("\n\n") + 2));
  const fastPayloads = sseData(cut(fast.text, fast.clean));
  const ordinaryPayloads = sseData(cut(ordinary.text, ordinary.clean));
  for (const payload of [...fastPayloads, ...ordinaryPayloads]) {
    if (payload === "[DONE]") continue;
    assert.ok(payload.startsWith(HEAD), `${label}: head of ${payload.slice(0, 100)}`);
    const chunk = JSON.parse(payload);
    assert.equal(chunk.model, CTX.model, `${label}: model of ${payload}`);
    assert.equal(chunk.id, CTX.id);
    assert.equal(chunk.created, CTX.created);
  }

  // Pass-through chunks: the ordinary path's own, or an upstream chunk behind the head.
  const upstream = upstreamData(stream.text);
  const ordinarySet = new Set([...ordinaryPayloads, ROLE_CHUNK]);
  for (const payload of fastPayloads) {
    if (ordinarySet.has(payload)) continue;
    const rest = payload.slice(HEAD.length);
    assert.ok(
      upstream.some((d) => d.endsWith(rest) && isUpstreamHead(d.slice(0, d.length - rest.length))),
      `${label}: chunk neither re-encoded nor forwarded: ${payload}`,
    );
  }
  // An upstream that streams (one read per event): where its chunks are written exactly as the
  // gateway's encoder writes them, the two paths send the same bytes.
  const eventReads = eventWise(stream.text);
  const [ordinaryE, fastE] = [
    await run("ordinary", eventReads),
    await run("passthrough", eventReads),
  ];
  assert.deepEqual(clientEvents(ordinaryE.text), clientEvents(ordinary.text));
  if (stream.sovraShaped) assert.equal(fastE.text, ordinaryE.text, `${label}: same bytes`);

  // Router pins: the same tool-call ids on both paths, those the client reads.
  const clientIds = clientEvents(ordinary.text).flatMap((e) =>
    e.type === "tool-call-delta" && e.id ? [e.id] : []
  );
  assert.deepEqual(ordinary.toolCallIds, clientIds, `${label}: tool-call ids, ordinary`);
  assert.deepEqual(fast.toolCallIds, clientIds, `${label}: tool-call ids, pass-through`);

  // Billing: the whole stream, and after every prefix of the upstream bytes.
  assert.deepEqual(await settled(fast.accounting), await settled(ordinary.accounting), label);
  for (let i = 1; i <= bytes.length; i += everyBoundary ? 1 : 7) {
    const prefix = bytes.subarray(0, i);
    assert.deepEqual(
      billingAfter("passthrough", prefix),
      billingAfter("ordinary", prefix),
      `${label}: billing after ${i} bytes`,
    );
  }

  // However the upstream's reads fall, each path sends the same answer, and the pass-through
  // the same bytes up to where the role goes: on its own chunk when the first read held only
  // the upstream's role chunk, else (as on the ordinary path) on the first re-encoded chunk.
  const answer = clientEvents(ordinary.text);
  for (const reads of splits(bytes, everyBoundary)) {
    const [o, f] = [await run("ordinary", reads), await run("passthrough", reads)];
    assert.ok(
      f.text === fast.text || f.text === fastE.text,
      `${label}: pass-through bytes with ${reads.length} reads`,
    );
    assert.deepEqual(clientEvents(o.text), answer, `${label}: answer with ${reads.length} reads`);
    assert.equal(f.outcome, fast.outcome);
    assert.equal(o.outcome, ordinary.outcome);
  }
  return fast;
}

Deno.test("stream pass-through — recorded provider formats and failure modes: same answer, bytes, end and bill as the ordinary path", async () => {
  for (const stream of FIXTURES) await checkStream(stream, true);
});

Deno.test("stream pass-through — generated streams (styles, framings, unicode, escapes, tool calls, reasoning, usage, endings)", async () => {
  let forwarded = 0;
  for (const stream of generatedStreams(15, 40)) {
    forwarded += (await checkStream(stream, false)).forwarded;
  }
  assert.ok(forwarded > 200, `the generated streams exercise forwarding (${forwarded} chunks)`);
});

Deno.test("stream pass-through — streams recorded from the simulator over HTTP", async () => {
  const sim = await startOpenAISimulator({});
  try {
    const cases = [
      { model: "m+chunks-20", body: {} },
      { model: "m+reasoning+chunks-5", body: { reasoning_effort: "high" } },
      {
        model: "m+parallel",
        body: {
          tools: ["get_weather", "get_time"].map((name) => ({
            type: "function",
            function: {
              name,
              parameters: { type: "object", properties: { city: { type: "string" } } },
            },
          })),
        },
      },
      { model: "m+no-usage+chunks-4", body: {} },
    ];
    for (const { model, body } of cases) {
      const res = await fetch(`${sim.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{
            role: "user",
            content: "What is the weather in Paris and the time in Berlin?",
          }],
          ...body,
        }),
      });
      const text = await res.text();
      const fast = await checkStream({ name: `simulator ${model}`, text }, false);
      assert.ok(fast.forwarded > 0, `${model}: chunks were forwarded`);
    }
  } finally {
    await sim.close();
  }
});

Deno.test("stream pass-through — the chunks that must change are not forwarded", async () => {
  const byName = (name: string) => FIXTURES.find((s) => s.name.startsWith(name))!;
  const vllm = await run("passthrough", [new TextEncoder().encode(byName("vllm").text)]);
  assert.ok(
    !vllm.text.includes("reasoning_content"),
    "reasoning is renamed as the ordinary path does",
  );
  assert.ok(vllm.text.includes('"reasoning":"The user asks"'));
  const mistral = await run("passthrough", [new TextEncoder().encode(byName("mistral").text)]);
  assert.ok(!mistral.text.includes('"thinking"'), "content parts become text and reasoning");
  const odd = await run("passthrough", [new TextEncoder().encode(byName("unknown finish").text)]);
  assert.ok(
    !odd.text.includes("upstream-secret") && !odd.text.includes("gpt-4o-mini"),
    "no upstream model leaks",
  );
  assert.ok(!odd.text.includes('"eos"') && !odd.text.includes("reasoning.bogus"));
  const openai = await run("passthrough", [new TextEncoder().encode(byName("openai text").text)]);
  assert.ok(openai.forwarded >= 3, "plain chunks are forwarded");
  assert.ok(
    openai.text.includes('"system_fingerprint":"fp_f9f4fb6dbf"'),
    "forwarded as the upstream wrote them",
  );
  assert.ok(!openai.text.includes("gpt-4o-2024-08-06"));
  assert.ok(!openai.text.includes('"audio_tokens"'), "usage is re-encoded and sent last");
});

Deno.test("stream pass-through — a long stream without usage: forwarded chunks beyond the kept limit are decoded to text, the bill is the same", async () => {
  const sim = await startOpenAISimulator({});
  try {
    const res = await fetch(`${sim.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m+no-usage+chunks-800",
        stream: true,
        messages: [{ role: "user", content: "Tell me a long story." }],
      }),
    });
    const text = await res.text();
    assert.ok(text.length > 3 * KEPT_CHUNK_CHARS, `a stream of ${text.length} characters`);
    const bytes = new TextEncoder().encode(text);
    const [ordinary, fast] = [await run("ordinary", [bytes]), await run("passthrough", [bytes])];
    assert.ok(fast.forwarded > 700);
    assert.deepEqual(clientEvents(fast.text), clientEvents(ordinary.text));
    const bill = await settled(fast.accounting);
    assert.equal(bill.usage.estimated, true);
    assert.deepEqual(bill, await settled(ordinary.accounting));
    for (let i = 1; i <= bytes.length; i += 4099) {
      const prefix = bytes.subarray(0, i);
      assert.deepEqual(billingAfter("passthrough", prefix), billingAfter("ordinary", prefix));
    }
  } finally {
    await sim.close();
  }
});
