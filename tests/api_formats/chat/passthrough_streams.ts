/**
 * Upstream `openai`-dialect SSE streams for the pass-through differential test: hand-written
 * ones in the wire formats of real providers (OpenAI, vLLM, Mistral, Python `json.dumps`) and
 * their failure modes, and generated ones from a seeded random source (styles, framings,
 * unicode, escapes, tool calls, reasoning, usage placements, endings). Streams recorded from
 * the simulator over HTTP are added by the test itself.
 */

export interface UpstreamStream {
  name: string;
  text: string;
  /** The upstream chunks are exactly what the gateway's own encoder writes: same bytes out. */
  sovraShaped?: boolean;
}

type Json = Record<string, unknown>;

const head = (id: string, created: number, model: string) =>
  `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${
    JSON.stringify(model)
  }`;

const OPENAI = head("chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", 1741569952, "gpt-4o-2024-08-06");
const VLLM = head("chatcmpl-5f2a0c9e7b8d4c0f", 1741570000, "Qwen/Qwen3-32B");
const MISTRAL = head("cmpl-e5cc70bb28c444948073e77776eb30ef", 1702256327, "mistral-small-latest");

const sse = (payloads: string[], eol = "\n") =>
  payloads.map((p) => `data: ${p}${eol}${eol}`).join("");

/** OpenAI: service tier, fingerprint, `usage: null` on every chunk, obfuscation, usage last. */
function openaiChunk(delta: string, finish = "null", extra = ',"usage":null') {
  return `${OPENAI},"service_tier":"default","system_fingerprint":"fp_f9f4fb6dbf","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]${extra},"obfuscation":"q8"}`;
}

export const FIXTURES: UpstreamStream[] = [
  {
    name: "openai text with usage",
    text: sse([
      openaiChunk('{"role":"assistant","content":"","refusal":null}'),
      openaiChunk('{"content":"The"}'),
      openaiChunk('{"content":" harbour of Marseille"}'),
      openaiChunk('{"content":" is old."}'),
      openaiChunk("{}", '"stop"'),
      `${OPENAI},"service_tier":"default","system_fingerprint":"fp_f9f4fb6dbf","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":6,"total_tokens":25,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"x"}`,
      "[DONE]",
    ]),
  },
  {
    name: "openai parallel tool calls, arguments with escaped keys",
    text: sse([
      openaiChunk('{"role":"assistant","content":null,"refusal":null}'),
      openaiChunk(
        '{"tool_calls":[{"index":0,"id":"call_a1","type":"function","function":{"name":"get_weather","arguments":""}}]}',
      ),
      openaiChunk('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\": \\"Par"}}]}'),
      openaiChunk(
        '{"tool_calls":[{"index":0,"function":{"arguments":"is\\", \\"model\\":\\"x\\", \\"usage\\": {}}"}}]}',
      ),
      openaiChunk(
        '{"tool_calls":[{"index":1,"id":"call_b2","type":"function","function":{"name":"get_time","arguments":""}}]}',
      ),
      openaiChunk('{"tool_calls":[{"index":1,"function":{"arguments":"{\\"tz\\":\\"CET\\"}"}}]}'),
      openaiChunk("{}", '"tool_calls"'),
      `${OPENAI},"choices":[],"usage":{"prompt_tokens":80,"completion_tokens":40,"total_tokens":120}}`,
      "[DONE]",
    ]),
  },
  {
    name: "vllm reasoning_content then content, usage chunk",
    text: sse([
      `${VLLM},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
      `${VLLM},"choices":[{"index":0,"delta":{"reasoning_content":"The user asks"},"logprobs":null,"finish_reason":null}]}`,
      `${VLLM},"choices":[{"index":0,"delta":{"reasoning_content":" about tides."},"logprobs":null,"finish_reason":null}]}`,
      `${VLLM},"choices":[{"index":0,"delta":{"content":"High tide at 6."},"logprobs":null,"finish_reason":null}]}`,
      `${VLLM},"choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}`,
      `${VLLM},"choices":[],"usage":{"prompt_tokens":12,"total_tokens":40,"completion_tokens":28}}`,
      "[DONE]",
    ]),
  },
  {
    name: "mistral: usage on the finish chunk, thinking content parts",
    text: sse([
      `${MISTRAL},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      `${MISTRAL},"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Tides follow the moon."}]}]},"finish_reason":null}]}`,
      `${MISTRAL},"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Twice a day."}]},"finish_reason":null}]}`,
      `${MISTRAL},"choices":[{"index":0,"delta":{"content":" Always."},"finish_reason":null}]}`,
      `${MISTRAL},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"total_tokens":21,"completion_tokens":12}}`,
      "[DONE]",
    ]),
  },
  {
    name: "python json.dumps spacing, ensure_ascii escapes, CRLF, comments, no space after data:",
    text: [
      ": connected\r\n\r\n",
      'data:{"id": "gen-1", "object": "chat.completion.chunk", "created": 1700000001, "model": "eu/llama", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]}\r\n\r\n',
      'data:{"id": "gen-1", "object": "chat.completion.chunk", "created": 1700000001, "model": "eu/llama", "choices": [{"index": 0, "delta": {"content": "caf\\u00e9 \\u00fcber \\ud83d\\ude00"}, "finish_reason": null}]}\r\n\r\n',
      ": keep-alive\r\n\r\n",
      'data:{"id": "gen-1", "object": "chat.completion.chunk", "created": 1700000001, "model": "eu/llama", "choices": [{"index": 0, "delta": {"content": " \\u0041BC"}, "finish_reason": null}]}\r\n\r\n',
      'data:{"id": "gen-1", "object": "chat.completion.chunk", "created": 1700000001, "model": "eu/llama", "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}], "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}}\r\n\r\n',
      "data:[DONE]\r\n\r\n",
    ].join(""),
  },
  {
    name: "unicode and escapes in content",
    text: sse([
      `${OPENAI},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":0,"delta":{"content":"Zürich ☃ 東京 😀 e\u0301 \u2028 end"},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":0,"delta":{"content":"quote \\" backslash \\\\ newline \\n tab \\t \\"usage\\":{\\"prompt_tokens\\":1} \\"model\\":\\"leak\\""},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":0,"delta":{"content":"\\\\"},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":0,"delta":{"content":"\\u003cb\\u003e \\u0026 \\u2603"},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
      "[DONE]",
    ]),
  },
  {
    name: "multi-line data, id and event fields",
    text: [
      `data: ${OPENAI},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`,
      `id: 7\nevent: chunk\ndata: ${OPENAI},\ndata: "choices":[{"index":0,"delta":{"content":"split over lines"},"finish_reason":null}]}\n\n`,
      `data: ${OPENAI},"choices":[{"index":0,"delta":{"content":" then plain"},"finish_reason":null}]}  \n\n`,
      `data: ${OPENAI},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
      "data: [DONE]\n\n",
    ].join(""),
  },
  {
    name: "error event mid-stream",
    text: sse([
      openaiChunk('{"role":"assistant","content":""}'),
      openaiChunk('{"content":"Part"}'),
      '{"error":{"message":"The server is overloaded","type":"server_error","code":null}}',
      openaiChunk('{"content":" never seen"}'),
      "[DONE]",
    ]),
  },
  {
    name: "error member inside a chunk of the learnt head",
    text: sse([
      openaiChunk('{"role":"assistant","content":""}'),
      openaiChunk('{"content":"Part"}'),
      `${OPENAI},"choices":[],"error":{"message":"overloaded"}}`,
      "[DONE]",
    ]),
  },
  {
    name: "malformed chunk",
    text: sse([
      openaiChunk('{"role":"assistant","content":""}'),
      openaiChunk('{"content":"Part"}'),
      `${OPENAI},"choices":[{"index":0,"delta":{"content":"cut`,
      "[DONE]",
    ]),
  },
  {
    name: "ends without [DONE]",
    text: sse([
      openaiChunk('{"role":"assistant","content":""}'),
      openaiChunk('{"content":"Part"}'),
      openaiChunk('{"content":" two"}'),
    ]),
  },
  {
    name: "chunks after [DONE] are ignored",
    text: sse([
      openaiChunk('{"role":"assistant","content":""}'),
      openaiChunk('{"content":"Done"}'),
      openaiChunk("{}", '"stop"'),
      "[DONE]",
      openaiChunk('{"content":"late"}'),
      "[DONE]",
    ]),
  },
  {
    name:
      "unknown finish reason, invalid reasoning detail, model change, choice 1, second model key",
    text: sse([
      openaiChunk('{"role":"assistant","content":""}'),
      openaiChunk(
        '{"reasoning":"think","reasoning_details":[{"type":"reasoning.text","text":"think","format":"f","index":0}]}',
      ),
      openaiChunk('{"reasoning_details":[{"type":"reasoning.bogus","text":"x"}]}'),
      `${
        head("chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", 1741569952, "gpt-4o-mini")
      },"choices":[{"index":0,"delta":{"content":"other model"},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":1,"delta":{"content":"second choice"},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":0,"delta":{"content":"dup"},"finish_reason":null}],"model":"upstream-secret"}`,
      openaiChunk('{"content":"\\u006dodel"}'),
      openaiChunk("{}", '"eos"'),
      "[DONE]",
    ]),
  },
  {
    name: "first chunk without the four-member head: no pass-through",
    text: sse([
      `{"id":"x","object":"chat.completion.chunk","created":1,"system_fingerprint":"fp","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      `{"id":"x","object":"chat.completion.chunk","created":1,"system_fingerprint":"fp","model":"m","choices":[{"index":0,"delta":{"content":"hello"},"finish_reason":null}]}`,
      `{"id":"x","object":"chat.completion.chunk","created":1,"system_fingerprint":"fp","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
      "[DONE]",
    ]),
  },
  {
    name: "no role chunk; first chunk carries content; non-object events",
    text: sse([
      "42",
      `${OPENAI},"choices":[{"index":0,"delta":{"content":"Straight in"},"finish_reason":null}]}`,
      "[1,2]",
      `${OPENAI},"choices":[{"index":0,"delta":{"content":" again"},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":0,"delta":{"content":null},"finish_reason":"stop"}]}`,
      "[DONE]",
    ]),
  },
  {
    name: "no usage anywhere (estimated bill)",
    text: sse([
      `${VLLM},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      `${VLLM},"choices":[{"index":0,"delta":{"content":"Estimate me, please, with a tokenizer."},"finish_reason":null}]}`,
      `${VLLM},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}]}`,
      `${VLLM},"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
      "[DONE]",
    ]),
  },
  {
    name: "keys spelled with escapes",
    text: sse([
      openaiChunk('{"role":"assistant","content":""}'),
      openaiChunk('{"content":"plain"}'),
      `${OPENAI},"choices":[{"index":0,"delta":{"\\u0072easoning_content":"hidden"},"finish_reason":null}]}`,
      `${OPENAI},"choices":[{"index":0,"delta":{"content":" more"},"finish_reason":null}],"\\u0075sage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
      `${OPENAI},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
      "[DONE]",
    ]),
  },
  {
    name: "usage in two partial reports",
    text: sse([
      openaiChunk('{"role":"assistant","content":""}', "null", ',"usage":{"prompt_tokens":7}'),
      openaiChunk('{"content":"ok"}'),
      openaiChunk("{}", '"stop"', ',"usage":{"completion_tokens":1}'),
      "[DONE]",
    ]),
  },
];

/** Chunks exactly as the gateway's own encoder writes them (same member order, no extras). */
function sovraShaped(rand: () => number, n: number): UpstreamStream {
  const h = head(`chatcmpl-up${n}`, 1700000000 + n, `upstream-model-${n}`);
  const chunk = (delta: Json, finish: string | null = null) =>
    `${h},"choices":[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${
      finish === null ? "null" : JSON.stringify(finish)
    },"logprobs":null}]}`;
  const payloads = [chunk({ role: "assistant", content: "" })];
  const count = 1 + Math.floor(rand() * 12);
  for (let i = 0; i < count; i++) {
    const kind = rand();
    // The encoder never writes an empty delta (only the role chunk has empty content).
    const piece = pick(rand, PIECES) || "x";
    if (kind < 0.6) payloads.push(chunk({ content: piece }));
    else if (kind < 0.8) payloads.push(chunk({ reasoning: piece }));
    else {
      payloads.push(chunk({
        tool_calls: [{
          index: 0,
          function: { arguments: JSON.stringify({ q: pick(rand, PIECES) }) },
        }],
      }));
    }
  }
  payloads.push(chunk({}, pick(rand, ["stop", "length", "tool_calls"])));
  if (rand() < 0.7) {
    const p = 1 + Math.floor(rand() * 500);
    const c = 1 + Math.floor(rand() * 500);
    payloads.push(
      `${h},"choices":[],"usage":{"prompt_tokens":${p},"completion_tokens":${c},"total_tokens":${
        p + c
      }}}`,
    );
  }
  payloads.push("[DONE]");
  return { name: `generated sovra-shaped #${n}`, text: sse(payloads), sovraShaped: true };
}

/** Content pieces: plain, unicode, escapes, key-like text, lone backslashes. */
const PIECES = [
  "Hello",
  " world",
  "Zürich ☃ 東京",
  "😀🇪🇺",
  'say "usage": {"prompt_tokens": 9}',
  '"model":"gpt-4o"',
  "back\\slash\\",
  "line\nbreak\r\n",
  "tab\there",
  "\u2028\u2029",
  "e\u0301",
  "<tag> & </tag>",
  "\u0000 nul",
  "",
  " ",
  "finish_reason",
  '{"error":{}}',
];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

/** Mulberry32: a small seeded PRNG, so a failing case can be replayed by its number. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON text with Python's `ensure_ascii` escapes for everything outside ASCII. */
function asciiJson(value: unknown, spaced: boolean): string {
  const text = spaced ? pythonSpacing(JSON.stringify(value)) : JSON.stringify(value);
  return text.replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Python's default separators (`, ` and `: `) outside strings. */
function pythonSpacing(json: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    out += c;
    if (inString) {
      if (c === "\\") out += json[++i]!;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "," || c === ":") out += " ";
  }
  return out;
}

/** A random stream in one provider's style and framing, with a random ending. */
function generated(rand: () => number, n: number): UpstreamStream {
  const style = pick(rand, ["openai", "vllm", "mistral", "python"] as const);
  const framing = pick(rand, ["lf", "crlf", "cr", "nospace", "comments", "multiline"] as const);
  const ending = pick(rand, ["done", "done", "done", "missing", "error", "malformed", "late"]);
  const usagePlace = pick(rand, ["chunk", "finish", "none", "partial"] as const);
  const base: Json = {
    id: `chatcmpl-gen${n}`,
    object: "chat.completion.chunk",
    created: 1700000000 + n,
    model: `up/model-${n}`,
  };
  if (style === "openai") base.system_fingerprint = "fp_gen";
  const chunk = (delta: Json | null, finish: string | null = null, extra: Json = {}): Json => ({
    ...base,
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(style === "openai" ? { usage: null } : {}),
    ...extra,
  });
  const chunks: Json[] = [chunk({ role: "assistant", content: "" })];
  const count = 1 + Math.floor(rand() * 10);
  for (let i = 0; i < count; i++) {
    const kind = rand();
    const piece = pick(rand, PIECES);
    if (kind < 0.45) chunks.push(chunk({ content: piece }));
    else if (kind < 0.6) {
      chunks.push(chunk(style === "vllm" ? { reasoning_content: piece } : { reasoning: piece }));
    } else if (kind < 0.65 && style === "mistral") {
      chunks.push(
        chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: piece }] }] }),
      );
    } else if (kind < 0.7) {
      chunks.push(chunk({
        reasoning_details: [{ type: "reasoning.text", text: piece, format: "f", index: 0 }],
      }));
    } else if (kind < 0.9) {
      const index = Math.floor(rand() * 2);
      const first = rand() < 0.4;
      chunks.push(chunk({
        tool_calls: [{
          index,
          ...(first ? { id: `call_${n}_${i}`, type: "function" } : {}),
          function: {
            ...(first ? { name: "lookup" } : {}),
            arguments: JSON.stringify({ q: piece }),
          },
        }],
      }));
    } else chunks.push(chunk({}));
  }
  const usage = { prompt_tokens: 3 + n, completion_tokens: 5 + count, total_tokens: 8 + n + count };
  const finish = pick(rand, ["stop", "length", "tool_calls", "content_filter", "eos"]);
  chunks.push(chunk({}, finish, usagePlace === "finish" ? { usage } : {}));
  if (usagePlace === "chunk") chunks.push(chunk(null, null, { usage }));
  if (usagePlace === "partial") {
    chunks.push(chunk(null, null, { usage: { prompt_tokens: usage.prompt_tokens } }));
    chunks.push(chunk(null, null, { usage: { completion_tokens: usage.completion_tokens } }));
  }
  const payloads = chunks.map((c) =>
    style === "python"
      ? asciiJson(c, true)
      : style === "mistral"
      ? asciiJson(c, false)
      : JSON.stringify(c)
  );
  if (ending === "error") payloads.splice(payloads.length - 1, 0, '{"error":{"message":"boom"}}');
  if (ending === "malformed") {
    payloads.splice(2, 0, `${JSON.stringify(base).slice(0, -1)},"choices":[`);
  }
  if (ending !== "missing") payloads.push("[DONE]");
  if (ending === "late") payloads.push(JSON.stringify(chunk({ content: "late" })));
  return {
    name: `generated ${style}/${framing}/${ending}/${usagePlace} #${n}`,
    text: frame(payloads, framing),
  };
}

function frame(payloads: string[], framing: string): string {
  switch (framing) {
    case "crlf":
      return sse(payloads, "\r\n");
    case "cr":
      return sse(payloads, "\r");
    case "nospace":
      return payloads.map((p) => `data:${p}\n\n`).join("");
    case "comments":
      return payloads.map((p) => `: ping\ndata: ${p}\n\n: pong\n\n`).join("");
    case "multiline":
      // JSON may break between tokens: split after the first comma outside the head.
      return payloads.map((p) => {
        const cut = p.indexOf(',"choices"');
        return cut === -1
          ? `data: ${p}\n\n`
          : `data: ${p.slice(0, cut + 1)}\ndata: ${p.slice(cut + 1)}\n\n`;
      }).join("");
    default:
      return sse(payloads);
  }
}

/** `count` generated streams of each kind from one seed. */
export function generatedStreams(seed: number, count: number): UpstreamStream[] {
  const rand = seeded(seed);
  const out: UpstreamStream[] = [];
  for (let n = 0; n < count; n++) out.push(generated(rand, n), sovraShaped(rand, n));
  return out;
}
