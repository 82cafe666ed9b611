/**
 * OpenTelemetry through Deno's built-in support: the real process with `OTEL_DENO=true` and the
 * standard `OTEL_*` variables exports (OTLP/HTTP JSON) to a local receiver on 127.0.0.1. A chat
 * request that falls back shows one request span with GenAI attributes, one span per upstream
 * attempt (provider, model, fallback index, the failure on the first) and the settle span, all
 * in one trace; no prompt or completion text is in anything exported.
 */
import assert from "node:assert/strict";
import { logRecord, seedKey, startMain } from "../contract/process_support.ts";
import { ANSWER_TEXT, startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { SIM_KEY, writeCatalog } from "../helpers/harness.ts";

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  status?: { code?: number };
}

/** An attribute as text (Deno exports JS numbers as `doubleValue`). */
function attr(span: OtlpSpan, key: string): string | undefined {
  const value = span.attributes.find((a) => a.key === key)?.value;
  const raw = value?.stringValue ?? value?.intValue ?? value?.doubleValue ?? value?.boolValue;
  return raw === undefined ? undefined : String(raw);
}

const PROMPT = "Tell me about the unmistakable-prompt-marker please";

Deno.test("OpenTelemetry — request, attempt and settle spans reach an OTLP/HTTP receiver", async () => {
  const bodies: string[] = [];
  const spans: OtlpSpan[] = [];
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const text = await req.text();
      bodies.push(text);
      if (new URL(req.url).pathname === "/v1/traces") {
        const payload = JSON.parse(text) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        };
        for (const r of payload.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      }
      return Response.json({});
    },
  );
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-otel-" });
  const kvPath = `${dir}/sovra.kv`;
  await writeCatalog(dir, {
    a: { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
    b: { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" },
  }, [{
    id: "acme/chat",
    kind: "chat",
    sovereignty: "strict",
    pricing: {
      prompt_micro_eur_per_million: 1_000_000,
      completion_micro_eur_per_million: 2_000_000,
    },
    supported_parameters: ["max_tokens"],
    routes: [
      { provider: "a", upstream_model: "primary+fail-503" },
      { provider: "b", upstream_model: "standby-ok" },
    ],
  }]);
  const { key } = await seedKey(kvPath);
  const gateway = startMain({
    SOVRA_PORT: "0",
    SOVRA_KV: kvPath,
    SOVRA_CATALOG: dir,
    SIM_KEY,
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.addr.port}`,
    OTEL_SERVICE_NAME: "sovra-test",
    OTEL_BSP_SCHEDULE_DELAY: "200",
  });
  try {
    const url = String(
      logRecord(await gateway.waitForLine((l) => l.includes('"sovra listening"'))).url,
    );
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/chat", messages: [{ role: "user", content: PROMPT }] }),
    });
    assert.equal(response.status, 200);
    const requestId = response.headers.get("x-sovra-request-id");
    assert.ok(requestId);
    await response.json();

    // Export is batched: wait (bounded) for the request span to arrive.
    const deadline = Date.now() + 15_000;
    const requestSpan = () => spans.find((s) => attr(s, "sovra.request_id") === requestId);
    while (!requestSpan() && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const root = requestSpan();
    assert.ok(root, "the request span was exported");
    assert.equal(root.name, "chat acme/chat");
    assert.equal(attr(root, "gen_ai.operation.name"), "chat");
    assert.equal(attr(root, "gen_ai.request.model"), "acme/chat");
    // The catalog model that served; the provider attribute names the standby.
    assert.equal(attr(root, "gen_ai.response.model"), "acme/chat");
    assert.equal(attr(root, "gen_ai.provider.name"), "b");
    assert.ok(Number(attr(root, "gen_ai.usage.input_tokens")) > 0);
    assert.ok(Number(attr(root, "gen_ai.usage.output_tokens")) > 0);
    assert.equal(attr(root, "sovra.fallbacks"), "1");
    // Its parent is Deno's own HTTP server span of the same trace. That span ends after the
    // response body went out, so it may come in a later export batch: wait for it (bounded).
    const serverSpan = () => spans.find((s) => s.spanId === root.parentSpanId);
    while (!serverSpan() && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const server = serverSpan();
    assert.ok(server, "the request span hangs under Deno's server span");

    while (
      spans.filter((s) => s.parentSpanId === root.spanId).length < 3 && Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const children = spans.filter((s) => s.parentSpanId === root.spanId);
    const attempts = children.filter((s) => s.name.startsWith("upstream "))
      .sort((x, y) =>
        Number(attr(x, "sovra.fallback_index")) - Number(attr(y, "sovra.fallback_index"))
      );
    assert.deepEqual(
      attempts.map((s) => [
        attr(s, "gen_ai.provider.name"),
        attr(s, "gen_ai.request.model"),
        attr(s, "sovra.fallback_index"),
        attr(s, "error.type"),
      ]),
      [["a", "primary+fail-503", "0", "unavailable"], ["b", "standby-ok", "1", undefined]],
    );
    assert.equal(attr(attempts[0]!, "http.response.status_code"), "503");
    // Deno's fetch span of each attempt nests under the attempt.
    for (const attempt of attempts) {
      assert.ok(spans.some((s) => s.parentSpanId === attempt.spanId), "a fetch span per attempt");
    }
    assert.ok(children.some((s) => s.name === "sovra settle"), "the settle span");
    assert.ok(spans.every((s) => s.traceId === root.traceId || s.parentSpanId === ""));

    // Never a prompt or a completion in anything exported.
    for (const body of bodies) {
      assert.ok(!body.includes("unmistakable-prompt-marker"), "no prompt exported");
      assert.ok(!body.includes(ANSWER_TEXT.slice(0, 30)), "no completion exported");
    }
  } finally {
    await gateway.stop();
    await sim.close();
    await receiver.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
