/**
 * Prompt-cache breakpoints on the rebuilding routes and rule 1 elsewhere, against the shipped
 * catalog: `cache_control` on chat parts, messages, tools and Responses input becomes Converse
 * `cachePoint` blocks and Anthropic `cache_control`, in place; rule 7 refuses what the route
 * cannot express (more than 4 breakpoints, a 1-hour TTL the model does not price, 1 h after
 * 5 min, tool breakpoints on Nova) with 400 code `cache_control` and `param` where it is, before
 * any call; the 1-hour writes are billed at their own price. On `openai`-dialect routes
 * breakpoints are removed and named (rule 1), `prompt_cache_key` reaches Mistral (whose cache
 * reads are billed at 10 %) and is removed and named elsewhere.
 */
import assert from "node:assert/strict";
import { SHIPPED_CATALOG, startShippedGateway } from "../../helpers/shipped_catalog.ts";

type Json = Record<string, unknown>;
const EPHEMERAL = { type: "ephemeral" };
const HOUR = { type: "ephemeral", ttl: "1h" };
const long = (tag: string) =>
  Array.from({ length: 700 }, (_, i) => `${tag} line ${i}: a fixed instruction.`).join("\n");
const TOOL = {
  type: "function",
  function: {
    name: "get_weather",
    description: long("tool").slice(0, 200),
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};

async function json(res: Response): Promise<Json> {
  return await res.json() as Json;
}

async function pricesOf(id: string): Promise<Record<string, number>> {
  const file = JSON.parse(await Deno.readTextFile(`${SHIPPED_CATALOG}/models.json`));
  return file.models.find((m: { id: string }) => m.id === id).pricing;
}

Deno.test("prompt cache — breakpoints on tools, system and messages reach Bedrock and Vertex in place", async (t) => {
  await using s = await startShippedGateway();
  const body = (model: string) => ({
    model,
    tools: [{ ...TOOL, cache_control: EPHEMERAL }],
    messages: [
      {
        role: "system",
        content: [
          { type: "text", text: long("system") },
          { type: "text", text: "Be brief.", cache_control: EPHEMERAL },
        ],
      },
      { role: "user", content: long("context"), cache_control: EPHEMERAL },
      { role: "assistant", content: "Understood." },
      { role: "user", content: "What now?" },
    ],
  });
  await t.step("Bedrock Converse: a cachePoint after each marked block", async () => {
    s.bedrock.reset();
    const res = await s.post("/v1/chat/completions", body("anthropic/claude-sonnet-4-5"));
    assert.equal(res.status, 200, JSON.stringify(await res.clone().json()));
    await res.body?.cancel();
    const sent = s.bedrock.requests[0]!.body as Json;
    const point = { cachePoint: { type: "default" } };
    const tools = (sent.toolConfig as Json).tools as Json[];
    assert.deepEqual(tools.map((x) => Object.keys(x)[0]), ["toolSpec", "cachePoint"]);
    assert.deepEqual(sent.system, [
      { text: long("system") },
      { text: "Be brief." },
      point,
    ]);
    const messages = sent.messages as Array<{ content: Json[] }>;
    assert.deepEqual(messages[0]!.content, [{ text: long("context") }, point]);
    assert.deepEqual(messages[2]!.content, [{ text: "What now?" }]);
    // The tool definition goes on without the client's field.
    assert.equal(JSON.stringify(tools[0]).includes("cache_control"), false);
  });
  await t.step("Anthropic on Vertex: cache_control on each marked block", async () => {
    s.vertex.reset();
    const res = await s.post("/v1/chat/completions", body("anthropic/claude-opus-4-5"));
    assert.equal(res.status, 200, JSON.stringify(await res.clone().json()));
    await res.body?.cancel();
    const sent = s.vertex.requests[0]!.body as Json;
    const tools = sent.tools as Json[];
    assert.deepEqual(tools[0]!.cache_control, EPHEMERAL);
    assert.deepEqual(sent.system, [
      { type: "text", text: long("system") },
      { type: "text", text: "Be brief.", cache_control: EPHEMERAL },
    ]);
    const messages = sent.messages as Array<{ content: Json[] }>;
    assert.deepEqual(messages[0]!.content, [
      { type: "text", text: long("context"), cache_control: EPHEMERAL },
    ]);
    assert.deepEqual(messages[2]!.content, [{ type: "text", text: "What now?" }]);
  });
});

Deno.test("prompt cache — Responses input and tools carry breakpoints; usage reports reads and writes", async () => {
  await using s = await startShippedGateway();
  const body = {
    model: "anthropic/claude-sonnet-4-5",
    tools: [{ type: "function", name: "lookup", parameters: { type: "object" } }],
    input: [
      {
        role: "user",
        content: [
          { type: "input_text", text: long("document"), cache_control: EPHEMERAL },
          { type: "input_text", text: "Summarise it." },
        ],
      },
    ],
  };
  const first = await json(await s.post("/v1/responses", body));
  const second = await json(await s.post("/v1/responses", body));
  const sent = s.bedrock.requests[0]!.body as { messages: Array<{ content: Json[] }> };
  assert.deepEqual(sent.messages[0]!.content.map((b) => Object.keys(b)[0]), [
    "text",
    "cachePoint",
    "text",
  ]);
  const details = (r: Json) => (r.usage as { input_tokens_details: Json }).input_tokens_details;
  const written = details(first).cache_write_tokens as number;
  assert.ok(written > 1_024, JSON.stringify(first.usage));
  assert.equal(details(first).cached_tokens, 0);
  assert.equal(details(second).cached_tokens, written);
  assert.equal(details(second).cache_write_tokens, 0);
});

Deno.test("prompt cache — a 1-hour breakpoint is sent as such and its writes billed at the 1-hour price", async () => {
  await using s = await startShippedGateway();
  const model = "anthropic/claude-sonnet-4-5";
  const res = await s.post("/v1/chat/completions", {
    model,
    messages: [
      { role: "system", content: [{ type: "text", text: long("policy"), cache_control: HOUR }] },
      { role: "user", content: "Hello?" },
    ],
  });
  assert.equal(res.status, 200);
  const answer = await json(res);
  const sent = s.bedrock.requests[0]!.body as { system: Json[] };
  assert.deepEqual(sent.system[1], { cachePoint: { type: "default", ttl: "1h" } });
  const u = s.bedrock.requests[0]!.usage as Record<string, number>;
  assert.ok(u.cacheWriteInputTokens! > 1_024);
  await s.gateway.deps.settler.idle();
  await s.gateway.deps.store.flushed();
  const [row] = await s.gateway.deps.store.listRequests(s.org, 1);
  assert.equal(row!.cache_write_tokens, u.cacheWriteInputTokens);
  assert.equal(row!.cache_write_1h_tokens, u.cacheWriteInputTokens);
  const p = await pricesOf(model);
  const sum = BigInt(u.inputTokens!) * BigInt(p.prompt_micro_eur_per_million!) +
    BigInt(u.cacheWriteInputTokens!) * BigInt(p.cache_write_1h_micro_eur_per_million!) +
    BigInt(u.outputTokens!) * BigInt(p.completion_micro_eur_per_million!);
  assert.equal(row!.cost_micro_eur, Number((sum + 999_999n) / 1_000_000n));
  assert.equal(
    (answer.usage as { prompt_tokens_details: Json }).prompt_tokens_details.cache_write_tokens,
    u.cacheWriteInputTokens,
  );
});

Deno.test("prompt cache — rule 7: what the route cannot express is refused naming where, before any call", async (t) => {
  await using s = await startShippedGateway();
  const part = (text: string, control: Json = EPHEMERAL) => ({
    type: "text",
    text,
    cache_control: control,
  });
  const cases: Array<{ name: string; body: Json; param: string; message: RegExp }> = [
    {
      name: "five breakpoints on Claude",
      body: {
        model: "anthropic/claude-sonnet-4-5",
        messages: [{
          role: "user",
          content: ["a", "b", "c", "d", "e"].map((x) => part(x)),
        }],
      },
      param: "messages[0].content[4].cache_control",
      message: /at most 4 cache_control breakpoints.*has 5/,
    },
    {
      name: "a 1-hour TTL on Nova (no 1-hour price)",
      body: {
        model: "amazon/nova-pro",
        messages: [{ role: "user", content: [part("x", HOUR)] }],
      },
      param: "messages[0].content[0].cache_control",
      message: /no 1-hour prompt cache/,
    },
    {
      name: "1 h after 5 min",
      body: {
        model: "anthropic/claude-opus-4-5",
        messages: [
          { role: "system", content: [part("rules")] },
          { role: "user", content: [part("question", HOUR)] },
        ],
      },
      param: "messages[1].content[0].cache_control",
      message: /"1h" must come before every "5m"/,
    },
    {
      name: "a tool breakpoint on Nova",
      body: {
        model: "amazon/nova-lite",
        tools: [TOOL, {
          ...TOOL,
          function: { ...TOOL.function, name: "b" },
          cache_control: EPHEMERAL,
        }],
        messages: [{ role: "user", content: "Weather?" }],
      },
      param: "tools[1].cache_control",
      message: /caches no tool definitions/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      s.bedrock.reset();
      s.vertex.reset();
      const res = await s.post("/v1/chat/completions", c.body);
      assert.equal(res.status, 400);
      const { error } = await json(res) as { error: Json };
      assert.equal(error.code, "cache_control");
      assert.equal(error.param, c.param);
      assert.equal(error.type, "invalid_request_error");
      assert.match(String(error.message), c.message);
      assert.equal(s.bedrock.requests.length + s.vertex.requests.length, 0);
    });
  }
});

Deno.test("prompt cache — rule 1 on openai-dialect routes: breakpoints removed and named; prompt_cache_key to Mistral only", async (t) => {
  await using s = await startShippedGateway();
  await t.step(
    "cache_control on a Mistral model: the text goes, without the breakpoint",
    async () => {
      s.openai.reset();
      const res = await s.post("/v1/chat/completions", {
        model: "mistral/mistral-large-2512",
        messages: [{
          role: "user",
          content: [{ type: "text", text: "Hello ", cache_control: EPHEMERAL }, {
            type: "text",
            text: "there",
          }],
        }],
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      assert.match(res.headers.get("x-sovra-dropped-params") ?? "", /(^|,)cache_control(,|$)/);
      const sent = s.openai.requests[0]!.body as { messages: Json[] };
      assert.deepEqual(sent.messages[0], { role: "user", content: "Hello there" });
      assert.deepEqual(s.violations(), []);
    },
  );
  await t.step(
    "prompt_cache_key: Mistral reads its cache, billed at the cached price",
    async () => {
      s.openai.reset();
      const model = "mistral/mistral-large-2512";
      const body = {
        model,
        prompt_cache_key: "support-session-42",
        messages: [
          { role: "system", content: long("support") },
          { role: "user", content: "My request returns 401." },
        ],
      };
      const first = await json(await s.post("/v1/chat/completions", body));
      const second = await json(await s.post("/v1/chat/completions", body));
      assert.equal(s.openai.requests[0]!.profile, "mistral");
      assert.equal((s.openai.requests[0]!.body as Json).prompt_cache_key, "support-session-42");
      type U = { prompt_tokens: number; completion_tokens: number; prompt_tokens_details: Json };
      const u1 = first.usage as U;
      const u2 = second.usage as U;
      assert.equal(u1.prompt_tokens_details.cached_tokens, 0);
      const cached = u2.prompt_tokens_details.cached_tokens as number;
      assert.ok(cached > 0 && cached % 64 === 0, JSON.stringify(u2));
      await s.gateway.deps.settler.idle();
      await s.gateway.deps.store.flushed();
      const [row] = await s.gateway.deps.store.listRequests(s.org, 1);
      const p = await pricesOf(model);
      const sum = BigInt(u2.prompt_tokens - cached) * BigInt(p.prompt_micro_eur_per_million!) +
        BigInt(cached) * BigInt(p.cached_prompt_micro_eur_per_million!) +
        BigInt(u2.completion_tokens) * BigInt(p.completion_micro_eur_per_million!);
      assert.equal(row!.cached_tokens, cached);
      assert.equal(row!.cost_micro_eur, Number((sum + 999_999n) / 1_000_000n));
      assert.equal(p.cached_prompt_micro_eur_per_million! * 10, p.prompt_micro_eur_per_million);
    },
  );
  await t.step("prompt_cache_key on a provider without it: removed and named", async () => {
    s.openai.reset();
    const res = await s.post("/v1/chat/completions", {
      model: "meta/llama-3.3-70b-instruct",
      prompt_cache_key: "k",
      messages: [{ role: "user", content: "Hi" }],
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.match(res.headers.get("x-sovra-dropped-params") ?? "", /prompt_cache_key/);
    assert.equal("prompt_cache_key" in (s.openai.requests[0]!.body as Json), false);
    assert.deepEqual(s.violations(), []);
  });
});
