/**
 * `GET /metrics`: served on its own port (never the request port), Prometheus text format that
 * a real exposition-format parser reads, and the figures of real requests through the gateway:
 * requests by model/provider/status class, latency, TTFT, overhead, tokens, micro-EUR billed,
 * upstream failures, fallbacks, gate refusals, open streams, commits, event-loop delay.
 */
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { transcriptionModel } from "../helpers/non_chat.ts";

interface Sample {
  labels?: Record<string, string>;
  value?: string;
}
interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

/**
 * Parses a scrape with `parse-prometheus-text-format`. That parser folds a histogram's series
 * together only when it has no labels besides `le`, so histograms are read a second time with
 * their TYPE line turned `untyped`: then `x_bucket`, `x_sum` and `x_count` are families of
 * their own (a family per run of lines, merged here), each series with its labels.
 */
async function scrape(h: Harness): Promise<Map<string, Family>> {
  const port = h.gateway.metricsPort;
  assert.ok(port !== undefined, "the metrics server runs");
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  const typed = parsePrometheusTextFormat(text) as Family[];
  const flat = parsePrometheusTextFormat(
    text.replace(/^(# TYPE \S+) histogram$/gm, "$1 untyped"),
  ) as Family[];
  const families = new Map<string, Family>();
  for (const f of flat) {
    const seen = families.get(f.name);
    if (seen) seen.metrics.push(...f.metrics);
    else families.set(f.name, f);
  }
  for (const f of typed) families.set(f.name, { ...f, metrics: families.get(f.name)!.metrics });
  return families;
}

function samples(families: Map<string, Family>, name: string): Sample[] {
  const family = families.get(name);
  assert.ok(family, `metric ${name} is exposed`);
  return family.metrics;
}

function find(list: Sample[], labels: Record<string, string>): Sample | undefined {
  const hits = list.filter((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  assert.ok(hits.length <= 1, `one series for ${JSON.stringify(labels)}`);
  return hits[0];
}

/** A histogram's `_count` for the labels. */
function count(families: Map<string, Family>, name: string, labels: Record<string, string>) {
  return find(samples(families, `${name}_count`), labels)?.value;
}

function sum(families: Map<string, Family>, name: string, labels: Record<string, string>) {
  return Number(find(samples(families, `${name}_sum`), labels)?.value);
}

const MODEL = "acme/chat";

Deno.test("GET /metrics — real traffic shows up, parsed by a Prometheus text-format parser", async () => {
  await using h = await startHarness({
    models: [
      chatModel(MODEL, ["primary+fail-503", "standby-ok"]),
      chatModel("acme/lonely", "only-route+fail-500"),
    ],
    env: { SOVRA_METRICS_PORT: "0" },
    rpm: 4,
  });
  // Not on the public request port.
  const onPublic = await fetch(`${h.url}/metrics`);
  assert.equal(onPublic.status, 404);
  await onPublic.body?.cancel();

  const messages = [{ role: "user" as const, content: "Hello" }];
  await h.client.chat.completions.create({ model: MODEL, messages });
  const stream = await h.client.chat.completions.create({ model: MODEL, messages, stream: true });
  for await (const _ of stream) { /* drain */ }
  await assert.rejects(h.client.chat.completions.create({ model: "acme/lonely", messages }));
  await assert.rejects(h.client.chat.completions.create({ model: "nope/unknown", messages }));
  // The key allows 4 requests a minute: the 5th is the gate's 429.
  const limited = await h.post("/v1/chat/completions", { model: MODEL, messages });
  assert.equal(limited.status, 429);
  await limited.body?.cancel();
  await h.flushed();

  const m = await scrape(h);
  const requests = samples(m, "sovra_requests_total");
  const served = find(requests, {
    endpoint: "chat",
    requested_model: MODEL,
    // The catalog model that served (the standby's provider says which route).
    served_model: MODEL,
    provider: "sim-b",
    status_class: "2xx",
  });
  assert.equal(served?.value, "2", "the plain and the streamed request");
  assert.equal(
    find(requests, { requested_model: "acme/lonely", provider: "sim-a", status_class: "5xx" })
      ?.value,
    "1",
  );
  // Refused before any provider: endpoint and status class only (unknown model, rate limit).
  const unrouted = requests.filter((s) => s.labels?.requested_model === undefined);
  assert.deepEqual(unrouted.map((s) => [s.labels, s.value]), [
    [{ endpoint: "chat", status_class: "4xx" }, "2"],
  ]);

  const failures = samples(m, "sovra_upstream_failures_total");
  assert.equal(find(failures, { provider: "sim-a", kind: "unavailable" })?.value, "3");
  assert.equal(find(samples(m, "sovra_fallbacks_total"), { requested_model: MODEL })?.value, "2");
  assert.equal(
    find(samples(m, "sovra_gate_refusals_total"), { reason: "rate_limit" })?.value,
    "1",
  );

  assert.equal(m.get("gen_ai_server_request_duration_seconds")?.type, "HISTOGRAM");
  assert.equal(
    count(m, "gen_ai_server_request_duration_seconds", {
      gen_ai_operation_name: "chat",
      gen_ai_request_model: MODEL,
      gen_ai_response_model: MODEL,
      gen_ai_provider_name: "sim-b",
    }),
    "2",
  );
  assert.equal(
    count(m, "gen_ai_server_time_to_first_token_seconds", { gen_ai_request_model: MODEL }),
    "1",
    "one streamed request",
  );
  const overhead = "sovra_gateway_overhead_seconds";
  assert.equal(count(m, overhead, { endpoint: "chat", stream: "false" }), "1");
  assert.equal(count(m, overhead, { endpoint: "chat", stream: "true" }), "1");
  const attempts = "gen_ai_client_operation_duration_seconds";
  assert.equal(count(m, attempts, { gen_ai_provider_name: "sim-b" }), "2");
  assert.equal(
    count(m, attempts, { gen_ai_request_model: "primary+fail-503", error_type: "unavailable" }),
    "2",
  );

  const input = { gen_ai_provider_name: "sim-b", gen_ai_token_type: "input" };
  assert.equal(count(m, "gen_ai_client_token_usage", input), "2");
  assert.ok(sum(m, "gen_ai_client_token_usage", input) > 0);
  const billed = find(samples(m, "sovra_billed_micro_eur_total"), { requested_model: MODEL });
  const rows = await h.store.listRequests(h.org, 10);
  const cost = rows.reduce((sum, r) => sum + r.cost_micro_eur, 0);
  assert.ok(cost > 0);
  assert.equal(Number(billed?.value), cost, "micro-EUR billed = the request log's sum");

  assert.ok(Number(count(m, "sovra_commit_batch_size", {})) >= 1);
  assert.ok(sum(m, "sovra_commit_batch_size", {}) >= 5, "5 rate increments + settles");
  assert.equal(
    count(m, "sovra_commit_duration_seconds", {}),
    count(m, "sovra_commit_batch_size", {}),
  );
  assert.equal(samples(m, "sovra_open_streams")[0]?.value, "0");
  assert.equal(samples(m, "sovra_transcription_slots_in_use")[0]?.value, "0");
  assert.equal(m.get("sovra_event_loop_delay_seconds")?.type, "HISTOGRAM");
  assert.equal(samples(m, "sovra_gate_fail_open_total")[0]?.value, "0");

  // Bounded cardinality: no key id, org id or request id in any label value.
  const text = await (await fetch(`http://127.0.0.1:${h.gateway.metricsPort}/metrics`)).text();
  for (const secret of [h.keyId, h.org, "req_"]) assert.ok(!text.includes(secret), secret);
});

Deno.test("GET /metrics — a stream in flight is an open stream; a 402 is counted", async () => {
  await using h = await startHarness({
    models: [chatModel(MODEL, "slow+slow-200+chunks-5")],
    env: { SOVRA_METRICS_PORT: "0" },
    credits: 1,
  });
  const response = await h.post("/v1/chat/completions", {
    model: MODEL,
    messages: [{ role: "user", content: "Hi" }],
    stream: true,
  });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  await reader.read();
  const during = await scrape(h);
  assert.equal(samples(during, "sovra_open_streams")[0]?.value, "1");
  while (!(await reader.read()).done) { /* drain */ }
  await h.flushed();
  // The stream spent the 1 micro-EUR of credit: the next request is refused with 402.
  const refused = await h.post("/v1/chat/completions", {
    model: MODEL,
    messages: [{ role: "user", content: "Hi" }],
  });
  assert.equal(refused.status, 402);
  await refused.body?.cancel();
  const after = await scrape(h);
  assert.equal(samples(after, "sovra_open_streams")[0]?.value, "0");
  assert.equal(
    find(samples(after, "sovra_gate_refusals_total"), { reason: "insufficient_credits" })?.value,
    "1",
  );
});

/**
 * Sends `head` and the start of a body (`half`) twice through a raw TCP connection, chunked and
 * with a declared length, closing each connection before its body ends; returns the request
 * counts once both are counted (a liveness bound of 10 s, not a timing assert).
 */
async function cutOffTwice(h: Harness, head: string, half: string): Promise<Sample[]> {
  for (
    const raw of [
      `${head}transfer-encoding: chunked\r\n\r\n${half.length.toString(16)}\r\n${half}\r\n`,
      `${head}content-length: ${half.length + 100}\r\n\r\n${half}`,
    ]
  ) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(h.url).port) });
    await conn.write(new TextEncoder().encode(raw));
    conn.close();
  }
  const deadline = Date.now() + 10_000;
  let counted: Sample[] = [];
  while (counted.reduce((n, s) => n + Number(s.value), 0) < 2) {
    assert.ok(Date.now() < deadline, "both requests are counted within 10 s");
    await new Promise((r) => setTimeout(r, 20));
    counted = (await scrape(h)).get("sovra_requests_total")?.metrics ?? [];
  }
  return counted;
}

Deno.test("GET /metrics — a client that leaves during the body read is counted as its 499 (4xx), not as an unhandled 500", async () => {
  await using h = await startHarness({
    models: [chatModel(MODEL, "sim-model")],
    env: { SOVRA_METRICS_PORT: "0" },
  });
  // Through the real HTTP stack: the request line, headers and half the body, then the connection
  // closes before the body ends.
  const half = `{"model":"${MODEL}","messages":[`;
  const head = "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n" +
    `authorization: Bearer ${h.key}\r\ncontent-type: application/json\r\n`;
  const counted = await cutOffTwice(h, head, half);
  // Before the fix: status_class 5xx (the body read's BadResource answered as an unhandled 500).
  assert.deepEqual(counted.map((s) => [s.labels, s.value]), [
    [{ endpoint: "chat", status_class: "4xx" }, "2"],
  ]);
  assert.deepEqual(await h.store.listRequests(h.org, 10), [], "no provider called, no row");
});

Deno.test("GET /metrics — a client that leaves during a transcription upload is counted as its 499 (4xx), not as an unhandled 500", async () => {
  await using h = await startHarness({
    models: [transcriptionModel("acme/whisper", "sim-whisper")],
    env: { SOVRA_METRICS_PORT: "0" },
  });
  // Through the real HTTP stack: a multipart upload whose file part is cut off by the client
  // closing the connection.
  const boundary = "sovra-cut-upload";
  const half =
    `--${boundary}\r\ncontent-disposition: form-data; name="model"\r\n\r\nacme/whisper\r\n` +
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.wav"\r\n` +
    `content-type: audio/wav\r\n\r\nRIFF`;
  const head = "POST /v1/audio/transcriptions HTTP/1.1\r\nhost: 127.0.0.1\r\n" +
    `authorization: Bearer ${h.key}\r\n` +
    `content-type: multipart/form-data; boundary=${boundary}\r\n`;
  const counted = await cutOffTwice(h, head, half);
  assert.deepEqual(counted.map((s) => [s.labels, s.value]), [
    [{ endpoint: "transcriptions", status_class: "4xx" }, "2"],
  ]);
  assert.deepEqual(await h.store.listRequests(h.org, 10), [], "no provider called, no row");
});
