/**
 * The smart router through the real HTTP stack against the simulator: `router/<id>` on chat
 * completions and /v1/responses, 404s, pool-only, the dial, eligibility, billing, metadata.
 */
import assert from "node:assert/strict";
import {
  LARGE,
  MEDIUM,
  MIXED_PROMPTS,
  NOTOOLS,
  OUTSIDE,
  SMALL,
  startRouterHarness,
  TINY_CONTEXT,
  upstreamModels,
} from "./router_support.ts";
import { readToEnd } from "../helpers/sse.ts";

const TOOL = {
  type: "function",
  function: {
    name: "lookup",
    parameters: { type: "object", properties: { q: { type: "string" } } },
  },
};
const POOL = [SMALL.id, MEDIUM.id, LARGE.id];
const QUALITY: Record<string, number> = { [SMALL.id]: 0.3, [MEDIUM.id]: 0.5, [LARGE.id]: 0.8 };

Deno.test("router — answers name the served model; 404 for unknown and foreign policies; metadata and billing", async () => {
  await using h = await startRouterHarness();
  await h.admin(["routing", "create"], { org: h.org, id: "support", pool: POOL.join(",") });
  const other = await h.admin(["org", "create"], { name: "Other" });
  await h.admin(["routing", "create"], {
    org: String(other.id),
    id: "theirs",
    pool: SMALL.id,
  });

  for (const model of ["router/nope", "router/theirs", "router/"]) {
    for (const path of ["/v1/chat/completions", "/v1/responses"]) {
      const body = path.endsWith("responses")
        ? { model, input: "hi" }
        : { model, messages: [{ role: "user", content: "hi" }] };
      const res = await h.post(path, body);
      assert.equal(res.status, 404, `${path} ${model}`);
      const error = (await res.json()).error;
      assert.equal(error.code, "model_not_found");
      assert.match(error.message, new RegExp(model.replace("/", "\\/")));
    }
  }

  const res = await h.post("/v1/chat/completions", {
    model: "router/support",
    messages: [{ role: "user", content: "Write a haiku about autumn leaves." }],
    user: "end-user-7",
  });
  assert.equal(res.status, 200);
  const answer = await res.json();
  const routed = res.headers.get("x-sovra-routed-model");
  assert.ok(routed && POOL.includes(routed), String(routed));
  assert.equal(answer.model, routed);
  assert.equal(res.headers.get("x-sovra-routing-policy"), "support");
  assert.match(
    res.headers.get("x-sovra-routing-reason") ?? "",
    /^auto: difficulty 0\.\d\d.*threshold 5/,
  );

  await h.flushed();
  const [row] = await h.gateway.deps.store.listRequests(h.org, 1);
  assert.equal(row!.requested_model, "router/support");
  assert.equal(row!.served_model, routed);
  assert.equal(row!.routing_policy, "support");
  // Billed at the served model's prices.
  const served = [SMALL, MEDIUM, LARGE].find((m) => m.id === routed)!;
  const p = served.pricing as Record<string, number>;
  const expected = Math.ceil(
    (row!.prompt_tokens! * p.prompt_micro_eur_per_million! +
      row!.completion_tokens! * p.completion_micro_eur_per_million!) / 1_000_000,
  );
  assert.equal(row!.cost_micro_eur, expected);
  assert.ok(expected > 0);
  // A direct request's metadata has no routing_policy.
  await h.post("/v1/chat/completions", {
    model: SMALL.id,
    messages: [{ role: "user", content: "hi" }],
  });
  await h.flushed();
  const [direct] = await h.gateway.deps.store.listRequests(h.org, 1);
  assert.equal(direct!.requested_model, SMALL.id);
  assert.equal("routing_policy" in direct!, false);
});

Deno.test("router — never outside the pool, over mixed prompts, dials and parameters", async () => {
  await using h = await startRouterHarness();
  for (let t = 1; t <= 10; t++) {
    await h.admin(["routing", "create"], {
      org: h.org,
      id: `t${t}`,
      pool: [SMALL.id, MEDIUM.id, LARGE.id, TINY_CONTEXT.id].join(","),
      threshold: String(t),
    });
  }
  h.sim.reset();
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 40; i++) {
    const prompt = MIXED_PROMPTS[Math.floor(next() * MIXED_PROMPTS.length)]!;
    const res = await h.post("/v1/chat/completions", {
      model: `router/t${1 + Math.floor(next() * 10)}`,
      messages: [{ role: "user", content: prompt.repeat(1 + Math.floor(next() * 3)) }],
      ...(next() < 0.3 ? { tools: [TOOL] } : {}),
      ...(next() < 0.3 ? { max_tokens: 1 + Math.floor(next() * 4000) } : {}),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const routed = res.headers.get("x-sovra-routed-model")!;
    assert.ok(routed !== OUTSIDE.id && routed !== NOTOOLS.id, routed);
    await res.body?.cancel();
  }
  for (const upstream of upstreamModels(h.sim.requests)) {
    assert.ok(["small", "medium", "large", "tinyctx"].includes(upstream), upstream);
  }
});

Deno.test("router — the dial is monotone on a fixed mixed prompt set; T=1 cheapest, T=10 strongest", async () => {
  await using h = await startRouterHarness();
  const mean: number[] = [];
  for (let t = 1; t <= 10; t++) {
    await h.admin(["routing", "create"], {
      org: h.org,
      id: `d${t}`,
      pool: POOL.join(","),
      threshold: String(t),
    });
    const served: string[] = [];
    for (const prompt of MIXED_PROMPTS) {
      const res = await h.post("/v1/chat/completions", {
        model: `router/d${t}`,
        messages: [{ role: "user", content: prompt }],
      });
      served.push((await res.json()).model);
    }
    if (t === 1) assert.ok(served.every((m) => m === SMALL.id), served.join());
    if (t === 10) assert.ok(served.every((m) => m === LARGE.id), served.join());
    mean.push(served.reduce((s, m) => s + QUALITY[m]!, 0) / served.length);
  }
  for (let t = 1; t < 10; t++) assert.ok(mean[t]! >= mean[t - 1]!, `T=${t + 1}: ${mean}`);
  // The middle dials mix models (the dial is not a switch).
  assert.ok(mean.slice(2, 8).some((q) => q > 0.3 && q < 0.8), String(mean));
});

Deno.test("router — eligibility: tools, reasoning and context length narrow the pool", async () => {
  await using h = await startRouterHarness();
  await h.admin(["routing", "create"], {
    org: h.org,
    id: "cheap",
    pool: [NOTOOLS.id, TINY_CONTEXT.id, SMALL.id, LARGE.id].join(","),
    threshold: "1",
  });
  await h.admin(["routing", "create"], { org: h.org, id: "nt", pool: NOTOOLS.id });
  const ask = async (model: string, extra: Record<string, unknown>) => {
    const res = await h.post("/v1/chat/completions", {
      model,
      messages: [{ role: "user", content: "hello" }],
      ...extra,
    });
    return {
      status: res.status,
      routed: res.headers.get("x-sovra-routed-model"),
      body: await res.json(),
    };
  };
  // Without needs, the cheapest (no tools) wins at T=1.
  assert.equal((await ask("router/cheap", {})).routed, NOTOOLS.id);
  const tools = await ask("router/cheap", {
    tools: [TOOL],
  });
  assert.equal(tools.routed, TINY_CONTEXT.id);
  assert.equal(tools.body.choices[0].finish_reason, "tool_calls");
  assert.equal((await ask("router/cheap", { reasoning: { effort: "high" } })).routed, LARGE.id);
  // 3,000 tokens asked: the 2,000-token model cannot hold them.
  const long = await ask("router/cheap", {
    max_tokens: 3000,
    tools: [TOOL],
  });
  assert.equal(long.routed, SMALL.id);
  // Nothing in the pool can call tools: rule 6's error, naming the policy and the model.
  const none = await ask("router/nt", { tools: [TOOL] });
  assert.equal(none.status, 400);
  assert.equal(none.body.error.code, "tools_not_supported");
  assert.match(none.body.error.message, /routing policy 'nt'.*sim\/notools: no tools/);
});

Deno.test("router — streaming chat and /v1/responses (JSON and streamed) through a router", async () => {
  await using h = await startRouterHarness();
  await h.admin(["routing", "create"], {
    org: h.org,
    id: "s",
    pool: [SMALL.id, LARGE.id].join(","),
    threshold: "10",
  });
  const stream = await h.client.chat.completions.create({
    model: "router/s",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  }).withResponse();
  assert.equal(stream.response.headers.get("x-sovra-routed-model"), LARGE.id);
  let chunks = 0;
  for await (const chunk of stream.data) {
    assert.equal(chunk.model, LARGE.id);
    chunks++;
  }
  assert.ok(chunks > 1);

  const response = await h.client.responses.create({ model: "router/s", input: "hi" })
    .withResponse();
  assert.equal(response.data.model, LARGE.id);
  assert.equal(response.response.headers.get("x-sovra-routing-policy"), "s");
  assert.ok(response.data.output_text.length > 0);

  const res = await h.post("/v1/responses", { model: "router/s", input: "hi", stream: true });
  assert.equal(res.headers.get("x-sovra-routed-model"), LARGE.id);
  const body = await readToEnd(res);
  assert.ok(body.clean);
  const completed = body.text.split("\n\n")
    .flatMap((event) => event.split("\n").filter((l) => l.startsWith("data: ")))
    .map((line) => JSON.parse(line.slice(6)))
    .find((data) => data.type === "response.completed");
  assert.ok(completed, "response.completed");
  assert.equal(completed.response.model, LARGE.id);

  await h.flushed();
  const rows = await h.gateway.deps.store.listRequests(h.org, 3);
  assert.deepEqual(rows.map((r) => [r.endpoint, r.routing_policy, r.served_model, r.stream]), [
    ["responses", "s", LARGE.id, true],
    ["responses", "s", LARGE.id, false],
    ["chat", "s", LARGE.id, true],
  ]);
});
