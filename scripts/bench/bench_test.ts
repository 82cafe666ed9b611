import assert from "node:assert/strict";
import { percentile, summarise } from "./latency_stats.ts";
import { luaString, parseWrkOutput, wrkScript } from "./wrk.ts";
import { parseProcStatus } from "./processes.ts";
import {
  BEGIN,
  type BenchResults,
  checks,
  END,
  POSTGRES_MARKERS,
  renderMarkdown,
  replaceSection,
} from "./report.ts";
import { runPaced } from "./paced_load.ts";
import { runClosed } from "./closed_load.ts";
import { chatRequest } from "./workload.ts";
import { summariseProfile } from "./profile_summary.ts";
import { countEvents, runSpread } from "./spread_streams.ts";
import { median, parseBaselineList, prepareBaseline, roundRatios } from "./baseline.ts";
import { targetRows } from "./targets.ts";
import {
  groupWrites,
  nginxConfig,
  nginxString,
  PRODUCTION_TIMING,
  simulatorAnswers,
  splitEvents,
  streamSeconds,
} from "./production_upstream.ts";
import { endsWithDone, runProduction } from "./production_load.ts";
import { parseWrkProductionOutput, wrkProductionScript } from "./wrk.ts";
import type { ProductionTargetResult } from "./measure.ts";
import { threadGroup } from "./processes.ts";
import { workersScaling } from "./report.ts";
import { parseRunParts } from "./workload.ts";

Deno.test("percentile — nearest rank on sorted samples", () => {
  const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentile(sorted, 50), 5);
  assert.equal(percentile(sorted, 99), 10);
  assert.equal(percentile(sorted, 0), 1);
  assert.ok(Number.isNaN(percentile([], 50)));
  assert.deepEqual(summarise([3, 1, 2]), { count: 3, p50: 2, p90: 3, p99: 3, p999: 3, max: 3 });
  const thousand = Array.from({ length: 1000 }, (_, i) => i + 1);
  assert.equal(summarise(thousand).p999, 999);
});

Deno.test("luaString — escapes quotes, backslashes and non-ASCII bytes", () => {
  assert.equal(luaString('a"b\\c'), '"a\\34b\\92c"');
  assert.equal(luaString("é\n"), '"\\195\\169\\10"');
});

Deno.test("wrkScript — posts the spec's body and headers", () => {
  const script = wrkScript({
    url: "http://127.0.0.1:1/v1/chat/completions",
    headers: { authorization: "Bearer k" },
    body: '{"a":1}',
  });
  assert.match(script, /^wrk\.method = "POST"$/m);
  assert.match(script, /^wrk\.body = "\{\\34a\\34:1\}"$/m);
  assert.match(script, /^wrk\.headers\["authorization"\] = "Bearer k"$/m);
  assert.match(script, /^done = function\(summary, latency, requests\)$/m);
});

Deno.test("parseWrkOutput — reads the JSON line of done()", () => {
  const out = "Running 10s test\n" +
    'WRK_JSON {"requests":5000,"duration_us":2000000,"p50_us":1500,"p99_us":4000,' +
    '"connect":0,"read":1,"write":0,"status":2,"timeout":0}\n';
  assert.deepEqual(parseWrkOutput(out), {
    tool: "wrk",
    requestsPerSecond: 2500,
    requests: 5000,
    errors: 3,
    p50Ms: 1.5,
    p99Ms: 4,
  });
  assert.equal(parseWrkOutput("no summary"), undefined);
});

Deno.test("parseProcStatus — VmRSS and VmHWM in KiB", () => {
  const status = "Name:\tdeno\nVmHWM:\t  204180 kB\nVmRSS:\t  198000 kB\n";
  assert.deepEqual(parseProcStatus(status), { rssKb: 198000, hwmKb: 204180 });
});

Deno.test("replaceSection — replaces the marked block and keeps the rest", () => {
  const first = replaceSection("# Performance\n\nNotes.\n", "table 1\n");
  assert.equal(first, `# Performance\n\nNotes.\n\n${BEGIN}\ntable 1\n${END}\n`);
  const second = replaceSection(first + "\nAfter.\n", "table 2\n");
  assert.equal(second, `# Performance\n\nNotes.\n\n${BEGIN}\ntable 2\n${END}\n\nAfter.\n`);
});

Deno.test("replaceSection — the PostgreSQL run writes its own block, the KV one stays", () => {
  const { begin, end } = POSTGRES_MARKERS;
  const doc = `${BEGIN}\nkv table\n${END}\n\nOn PostgreSQL:\n\n${begin}\nold\n${end}\n\nAfter.\n`;
  const out = replaceSection(doc, "pg table\n", POSTGRES_MARKERS);
  assert.equal(
    out,
    `${BEGIN}\nkv table\n${END}\n\nOn PostgreSQL:\n\n${begin}\npg table\n${end}\n\nAfter.\n`,
  );
  assert.equal(replaceSection(out, "kv 2\n"), out.replace("kv table", "kv 2"));
});

function sampleResults(
  sovraP50: number,
  sovraRps: number,
  streamsKb: number,
  loopP99 = 1,
): BenchResults {
  const summary = (p50: number) => ({
    count: 5000,
    p50,
    p90: p50,
    p99: p50 + 1,
    p999: p50 + 1.5,
    max: p50 + 2,
  });
  const target = (p50: number, rps: number, loop?: number) => ({
    closed: {
      tool: "wrk" as const,
      requestsPerSecond: rps,
      requests: rps,
      errors: 0,
      p50Ms: 1,
      p99Ms: 2,
    },
    paced: {
      rate: 500,
      durationSeconds: 10,
      sent: 5000,
      ok: 5000,
      errors: 0,
      latency: summary(p50),
      service: summary(p50),
      ttfb: summary(p50 / 2),
      sendLag: { count: 5000, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 },
      maxInFlight: 3,
    },
    ...(loop === undefined ? {} : { loopDelay: { ...summary(loop - 1), p99: loop } }),
  });
  return {
    date: "2026-01-01 00:00 UTC",
    machine: { nproc: 2, cpu: "CPU", kernel: "6", loadAverage: "0 0 0" },
    settings: {
      connections: 32,
      warmupSeconds: 3,
      closedSeconds: 10,
      pacedRate: 500,
      pacedSeconds: 10,
      closedTool: "wrk",
      sovraKv: "file",
    },
    scenarios: {
      "non-stream": {
        direct: target(0.5, 40_000),
        "bare-proxy": target(0.8, 18_000),
        sovra: target(sovraP50, sovraRps, loopP99),
      },
    },
    peers: {},
    sovraPeakKb: 100 * 1024,
    openStreams: {
      sovra: {
        requested: 1000,
        open: 1000,
        completed: 1000,
        errors: 0,
        beforeKb: 80 * 1024,
        whileOpenKb: streamsKb,
      },
    },
  };
}

Deno.test("checks — PASS within the limits, MISS outside them", () => {
  const good = checks(sampleResults(0.9, 12_000, 120 * 1024));
  assert.equal(good.length, 4);
  assert.ok(good.every((c) => c.pass), JSON.stringify(good));
  // The non-stream added p50 limit is tighter: ≤ 0.5 ms.
  const near = checks(sampleResults(1.2, 10_000, 120 * 1024));
  assert.deepEqual(near.map((c) => [c.target, c.pass]).filter(([, pass]) => !pass), [
    ["≤ 0.5 ms", false],
  ]);
  const bad = checks(sampleResults(2.0, 8_000, 200 * 1024, 2.5));
  // added p50, added p99, loop delay p99, open-stream RSS (÷ bare req/s is a targets row)
  assert.deepEqual(bad.map((c) => c.pass), [false, true, false, false]);
  const markdown = renderMarkdown(sampleResults(2.0, 8_000, 200 * 1024, 2.5));
  assert.match(markdown, /\| non-stream \| sovra \| 8,000 \| 44 % \| – \| 0 \|/);
  assert.match(
    markdown,
    /\| non-stream \| sovra \| 2\.00 ms \| 3\.00 ms \| 1\.50 ms \| 1\.50 ms \| 1\.50 ms \| 1\.50 ms \| 1\.00 ms \| 0\.75 ms \| 0\.75 ms \| 1\.50 \/ 2\.50 \/ 3\.50 ms \| 0 \|/,
  );
  assert.match(markdown, /\| MISS \|/);
  assert.match(markdown, /\| sovra: increment per open stream \| 123 KiB \|/);
});

Deno.test("peers — Sovra ÷ each peer per scenario, and the ahead-of-every-peer rows", () => {
  const results = sampleResults(1.2, 10_000, 120 * 1024);
  const scenario = results.scenarios["non-stream"]!;
  scenario.portkey = {
    ...scenario["bare-proxy"]!,
    closed: { ...scenario.sovra!.closed!, requestsPerSecond: 5_000 },
  };
  scenario.litellm = {
    ...scenario["bare-proxy"]!,
    closed: { ...scenario.sovra!.closed!, requestsPerSecond: 20_000 },
  };
  results.peers = {
    portkey: { version: "1.15.2", failed: { stream: "answered 500" } },
    litellm: { version: "1.74.15.post2" },
  };
  const rows = targetRows(results).filter((r) => /non-stream:? req\/s/.test(r.name));
  assert.deepEqual(rows.map((r) => [r.name, r.measured, r.met]), [
    ["instant: non-stream req/s ÷ bare proxy", "56 % (10,000 req/s / 18,000 req/s)", true],
    ["ahead of portkey: instant non-stream: req/s", "10,000 req/s / 5,000 req/s", true],
    ["ahead of litellm: instant non-stream: req/s", "10,000 req/s / 20,000 req/s", false],
  ]);
  const markdown = renderMarkdown(results);
  assert.match(markdown, /\| non-stream \| portkey \| 5,000 \| 2\.00× \|/);
  assert.match(markdown, /portkey 1\.15\.2 \(could not serve stream: answered 500\)/);
  assert.match(markdown, /\| ahead of litellm: instant non-stream: req\/s \| .* \| missed \|/);
  // A starved proxy (its CPU per request × req/s well under one core) measures the host.
  scenario.sovra!.proxyCpuUsPerRequest = 50; // 10,000 req/s × 50 µs: half a core
  scenario["bare-proxy"]!.proxyCpuUsPerRequest = 50; // 18,000 × 50 µs: 0.9 of a core
  const starved = targetRows(results).find((r) =>
    r.name === "instant: non-stream req/s ÷ bare proxy"
  )!;
  assert.equal(starved.met, undefined);
  assert.match(
    starved.measured,
    /CPU\/req 50 µs \/ 50 µs\) \(starved: sovra had 50 % of its core\)$/,
  );
  results.peers = { litellm: { skipped: "install failed" } };
  assert.match(renderMarkdown(results), /litellm skipped \(install failed\)/);
  assert.equal(targetRows(results).filter((r) => r.name.startsWith("ahead of")).length, 0);
});

Deno.test("chatRequest — a peer's routing headers go with every request", () => {
  const spec = chatRequest(
    {
      base: "http://127.0.0.1:1",
      key: "k",
      catalog: false,
      headers: { "x-portkey-provider": "openai" },
    },
    { stream: true },
  );
  assert.equal(spec.headers["x-portkey-provider"], "openai");
  assert.equal(spec.headers.authorization, "Bearer k");
});

Deno.test("summariseProfile — self and inclusive time per file", () => {
  const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
  const summary = summariseProfile({
    nodes: [
      { id: 1, callFrame: frame("(root)", ""), children: [2] },
      { id: 2, callFrame: frame("handler", "file:///work/main/src/a.ts"), children: [3] },
      { id: 3, callFrame: frame("parse", "file:///work/main/src/b.ts") },
    ],
    samples: [3, 3, 2],
    timeDeltas: [1000, 1000, 2000],
  });
  assert.equal(summary.totalMs, 4);
  assert.deepEqual(new Map(summary.selfByFile), new Map([["src/a.ts", 2], ["src/b.ts", 2]]));
  assert.deepEqual(summary.inclusiveByFile[0], ["src/a.ts", 4]);
});

/**
 * A server answering every request with 3 SSE events `gapMs` apart and `[DONE]` (the first event
 * after the gap with `failEvery`, else at once), and every `failEvery`-th request with a 500.
 */
function sseServer(options: { gapMs: number; failEvery?: number }): Deno.HttpServer<Deno.NetAddr> {
  let hits = 0;
  return Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    await req.text();
    hits++;
    if (options.failEvery !== undefined && hits % options.failEvery === 0) {
      return new Response("no", { status: 500 });
    }
    const wait = () => new Promise((resolve) => setTimeout(resolve, options.gapMs));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (let i = 0; i < 3; i++) {
          if (options.failEvery !== undefined || i > 0) await wait();
          controller.enqueue(new TextEncoder().encode(`data: {"i":${i}}\n\n`));
        }
        if (options.failEvery === undefined) await wait();
        controller.enqueue(new TextEncoder().encode("data: [DONE]\n\n"));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
}

async function withServer(fn: (url: string) => Promise<void>): Promise<void> {
  let hits = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    await req.text();
    hits++;
    return new Response(hits % 5 === 0 ? "fail" : "ok", { status: hits % 5 === 0 ? 500 : 200 });
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

Deno.test("runPaced — sends rate × duration requests and counts failures", async () => {
  await withServer(async (url) => {
    const spec = chatRequest({ base: url, key: "k", catalog: false }, { stream: false });
    const result = await runPaced(spec, {
      rate: 200,
      durationSeconds: 0.25,
      warmupSeconds: 0,
      connections: 4,
    });
    assert.equal(result.sent, 50);
    assert.equal(result.ok + result.errors, 50);
    assert.equal(result.errors, 10);
    assert.equal(result.latency.count, 50);
    assert.ok(result.latency.p50 >= result.service.p50 - 1e-9);
    assert.equal(result.ttfb.count, 40, "time to first byte of every successful answer");
    assert.ok(result.ttfb.max <= result.latency.max + 1e-9, "a first byte never after the last");
  });
});

Deno.test("runClosed — counts every completed request and the failures", async () => {
  await withServer(async (url) => {
    const spec = chatRequest({ base: url, key: "k", catalog: false }, { stream: true });
    const result = await runClosed(spec, { connections: 2, durationSeconds: 0.2 });
    assert.equal(result.tool, "deno");
    assert.ok(result.requests > 0);
    assert.equal(result.errors, Math.floor(result.requests / 5));
  });
});

Deno.test("countEvents — counts `data:` at line starts, across reads", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  assert.deepEqual(countEvents(enc('data: {"a":1}\n\ndata: [DONE]\n\n'), true), [2, true]);
  assert.deepEqual(countEvents(enc('data: {"x":"data: no"}\n'), true), [1, true]);
  const [first, atStart] = countEvents(enc("data: 1\n"), true);
  assert.deepEqual([first, atStart], [1, true]);
  assert.deepEqual(countEvents(enc("data: 2\n\n"), atStart), [1, true]);
  assert.deepEqual(countEvents(enc("data: 3"), false), [0, false]);
});

Deno.test("runSpread — counts events and completed streams inside the window", async () => {
  const server = sseServer({ gapMs: 20 });
  try {
    const spec = chatRequest({
      base: `http://127.0.0.1:${server.addr.port}`,
      key: "k",
      catalog: false,
    }, { stream: true });
    let started = false;
    let ended: unknown;
    const result = await runSpread(spec, {
      streams: 4,
      rampSeconds: 0.1,
      durationSeconds: 0.5,
      onStart: () => started = true,
      onEnd: (r) => ended = r,
    });
    assert.ok(started);
    assert.deepEqual(ended, result);
    assert.equal(result.errors, 0);
    assert.ok(result.completed > 0, JSON.stringify(result));
    // Every stream has 4 events; those cut by the window's edges count partly.
    assert.ok(result.chunks >= result.completed * 3, JSON.stringify(result));
  } finally {
    await server.shutdown();
  }
});

Deno.test("parseBaselineList — revisions and directories, blanks dropped", () => {
  assert.deepEqual(parseBaselineList("561398a, /tmp/tree ,,"), ["561398a", "/tmp/tree"]);
  assert.deepEqual(parseBaselineList(""), []);
});

Deno.test("median and roundRatios — per window, the target ÷ the reference", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([NaN])));
  const rounds = [
    { cpuUsPerRequest: [120, 100], p50Ms: [1, 1], errors: [0, 0] },
    { cpuUsPerRequest: [90, 100], p50Ms: [1, 1], errors: [0, 0] },
  ];
  assert.deepEqual(roundRatios(rounds, 0, 1), [1.2, 0.9]);
});

Deno.test("prepareBaseline — a revision is extracted with its bench server; a checkout is used as it is", async () => {
  const root = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
  const dir = await Deno.makeTempDir({ prefix: "sovra-baseline-test-" });
  try {
    const tree = await prepareBaseline("HEAD", root, dir);
    assert.equal(tree.label, "HEAD");
    assert.ok(tree.dir.startsWith(`${dir}/baseline-`));
    const server = await Deno.readTextFile(`${tree.dir}/scripts/bench/sovra_server.ts`);
    const committed = await new Deno.Command("git", {
      args: ["-C", root, "show", "HEAD:scripts/bench/sovra_server.ts"],
    }).output();
    assert.equal(server, new TextDecoder().decode(committed.stdout));
    assert.ok((await Deno.stat(`${tree.dir}/deno.json`)).isFile);
    assert.deepEqual(await prepareBaseline(tree.dir, root, dir), {
      label: tree.dir.split("/").pop(),
      dir: tree.dir,
    });
    await assert.rejects(
      prepareBaseline("no-such-revision-xyz", root, dir),
      /neither a Sovra checkout nor a git revision/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("baseline checks — this checkout's median ratio against the reference, errors fail", () => {
  const results = sampleResults(0.9, 12_000, 120 * 1024);
  const window = (ours: number, noWait: number, errors = 0) => ({
    cpuUsPerRequest: [ours, noWait, 1000],
    p50Ms: [2, 2, 2],
    errors: [errors, 0, 0],
  });
  const paced = sampleResults(0.9, 12_000, 120 * 1024).scenarios["non-stream"]!.sovra!.paced;
  results.baseline = {
    reference: "561398a",
    targets: ["sovra-unguarded", "sovra-no-admission-wait", "561398a"],
    rounds: 3,
    rate: 150,
    warmupSeconds: 3,
    durationSeconds: 10,
    cases: [
      {
        name: "non-stream",
        stream: false,
        upstreamWaitMs: 0,
        // Medians: 1.16× and 1.0×.
        rounds: [window(1160, 990), window(1200, 1000), window(1100, 1010)],
        paced: { "sovra-unguarded": paced },
      },
      {
        name: "stream, upstream 50 ms",
        stream: true,
        upstreamWaitMs: 50,
        rounds: [window(1040, 980, 2)],
        paced: {},
      },
    ],
  };
  const found = checks(results).filter((c) => c.name.includes("÷ 561398a"));
  assert.deepEqual(found.map((c) => [c.name.split(":")[0], c.measured, c.pass]), [
    ["non-stream", "1.16×", false],
    ["non-stream", "1.00×", true],
    ["stream, upstream 50 ms", "1.04×", false], // within the limit, but it had errors
    ["stream, upstream 50 ms", "0.98×", true],
  ]);
  const markdown = renderMarkdown(results);
  assert.match(
    markdown,
    /\| non-stream \| sovra-unguarded \| 1160 µs \| 1\.16× \(1\.10–1\.20\) \|/,
  );
  assert.match(markdown, /\| non-stream \| 561398a \| 1000 µs \| – \|/);
});

Deno.test("groupWrites — role and first token together, one write per chunk, the end last", () => {
  const body = [
    'data: {"role"}',
    ...Array.from({ length: 4 }, (_, i) => `data: {"content":"${i}"}`),
    'data: {"finish"}',
    'data: {"usage"}',
    "data: [DONE]",
  ].map((e) => `${e}\n\n`).join("");
  const events = splitEvents(body);
  assert.equal(events.length, 8);
  assert.deepEqual(groupWrites(events, 4), [
    'data: {"role"}\n\ndata: {"content":"0"}\n\n',
    'data: {"content":"1"}\n\n',
    'data: {"content":"2"}\n\n',
    'data: {"content":"3"}\n\n',
    'data: {"finish"}\n\ndata: {"usage"}\n\ndata: [DONE]\n\n',
  ]);
  assert.equal(streamSeconds(PRODUCTION_TIMING), 1.3);
});

Deno.test("nginxConfig — the simulator's answers with the scenario's timing", async () => {
  const answers = await simulatorAnswers(PRODUCTION_TIMING);
  assert.equal(answers.writes.length, PRODUCTION_TIMING.chunks + 1);
  assert.ok(answers.writes.at(-1)!.endsWith("data: [DONE]\n\n"));
  assert.equal(JSON.parse(answers.json).object, "chat.completion");
  const conf = nginxConfig(answers, PRODUCTION_TIMING, { port: 1234, dir: "/tmp/x" });
  const stream = conf.slice(conf.indexOf("/stream/v1"), conf.indexOf("/json/v1"));
  assert.equal(stream.match(/echo_sleep 0\.300;/g)?.length, 1);
  assert.equal(stream.match(/echo_sleep 0\.025;/g)?.length, PRODUCTION_TIMING.chunks);
  assert.equal(stream.match(/echo_flush;/g)?.length, PRODUCTION_TIMING.chunks + 1);
  assert.match(conf.slice(conf.indexOf("/json/v1")), /echo_sleep 0\.800;/);
  assert.match(conf, /listen 127\.0\.0\.1:1234 /);
  assert.equal(nginxString("a'b\\c\n"), "'a\\'b\\\\c\\n'");
  assert.throws(() => nginxString("$x"), /\$/);
});

Deno.test("runProduction — paced requests over keep-alive sockets, events and first bytes counted", async () => {
  const server = sseServer({ gapMs: 15, failEvery: 4 });
  try {
    const spec = chatRequest({
      base: `http://127.0.0.1:${server.addr.port}`,
      key: "k",
      catalog: false,
    }, { stream: true });
    const result = await runProduction(spec, {
      rate: 40,
      warmupSeconds: 0,
      durationSeconds: 0.5,
      timeoutMs: 5_000,
      stream: true,
    });
    assert.equal(result.sent, 20);
    assert.equal(result.errors, 5, "every fourth answer is a 500");
    assert.equal(result.ok, 15);
    assert.equal(result.ttfb.count, 15);
    assert.ok(result.ttfb.p50 >= 15, "the first chunk comes after 15 ms");
    assert.ok(result.ttfb.max <= result.latency.max);
    // 4 events per stream; the window closes while the last ones are still arriving.
    assert.ok(result.chunks > 0 && result.chunks <= 15 * 4, JSON.stringify(result));
    // Answers that ended inside the window, each with its 4 events.
    assert.ok(result.windowCompleted > 0 && result.windowCompleted <= 15, JSON.stringify(result));
    assert.equal(result.windowCompletedEvents, result.windowCompleted * 4);
    assert.ok(result.meanOpen > 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("endsWithDone — a stream's last read, blank lines after [DONE] or not", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  assert.ok(endsWithDone(enc("data: [DONE]\n\n")));
  assert.ok(endsWithDone(enc("data: [DONE]")));
  assert.ok(!endsWithDone(enc('data: {"a":1}\n\n')));
  assert.ok(!endsWithDone(enc("ONE]")));
});

Deno.test("wrk production script — window counters read from every thread, the ramp first", () => {
  const script = wrkProductionScript({
    url: "http://127.0.0.1:1/v1/chat/completions",
    headers: { authorization: "Bearer k" },
    body: "{}",
  });
  assert.match(script, /^setup = function\(thread\) table\.insert\(threads, thread\) end$/m);
  assert.match(script, /if delays <= connections then return math\.random\(0, ramp\) end/);
  assert.match(script, /t:get\("completed"\)/);
  const out = 'WRK_PROD {"requests":900,"duration_us":12000000,"mean_us":1400000.5,' +
    '"p50_us":1350000,"p99_us":1600000,"errors":2,"completed":700,"events":30800,"failed":1}\n';
  assert.deepEqual(parseWrkProductionOutput(out), {
    requests: 900,
    durationSeconds: 12,
    latencyMeanMs: 1400.0005,
    latencyP50Ms: 1350,
    latencyP99Ms: 1600,
    errors: 2,
    windowCompleted: 700,
    windowEvents: 30800,
    windowFailed: 1,
  });
  assert.equal(parseWrkProductionOutput("nothing"), undefined);
});

/** A production-shaped result of a target: `cpuUs` per request, `kb` per open stream. */
function production(
  cpuUs: number,
  kb: number,
  ttfbP99: number,
  errors = 0,
): ProductionTargetResult {
  if (cpuUs === 0) {
    // direct: no proxy, so no proxy figures.
    const { proxyCpuSeconds: _, proxyThreadCpuSeconds: __, idleKb: ___, windowKb: ____, ...rest } =
      production(1, kb, ttfbP99, errors);
    return rest;
  }
  const summary = (p: number) => ({ count: 100, p50: p - 1, p90: p, p99: p, p999: p, max: p });
  const probe = {
    chunks: 0,
    windowCompleted: 380,
    windowCompletedEvents: 0,
    meanOpen: 50,
    maxOpen: 60,
    rate: 38,
    warmupSeconds: 3,
    durationSeconds: 10,
    sent: 380,
    ok: 380,
    errors: 0,
    latency: summary(1400),
    ttfb: summary(ttfbP99),
    sendLag: summary(1),
  };
  return {
    durationSeconds: 10,
    connections: 950,
    requestsPerSecond: 700,
    ok: 7000,
    errors,
    chunks: 7000 * 44,
    meanOpen: 1000,
    ttfb: summary(ttfbP99),
    latency: summary(1400),
    sendLag: summary(1),
    wrk: {
      requests: 9000,
      durationSeconds: 14,
      latencyMeanMs: 1350,
      latencyP50Ms: 1340,
      latencyP99Ms: 1500,
      errors: 0,
      windowCompleted: 6620,
      windowEvents: 291280,
      windowFailed: 0,
    },
    probe,
    proxyCpuSeconds: cpuUs * 7000 / 1e6,
    proxyThreadCpuSeconds: { main: cpuUs * 7000 / 1e6, workers: 0, kv: 0, v8: 0, io: 0 },
    idleKb: 40_000,
    windowKb: 40_000 + kb * 1000,
    loadCpuSeconds: 5,
  };
}

Deno.test("targets — production rows against the bare proxy, met and missed, peers and not measured", () => {
  const results = sampleResults(0.9, 12_000, 120 * 1024);
  results.production = {
    timing: PRODUCTION_TIMING,
    open: 1000,
    maxDelayMs: 50,
    warmupSeconds: 3,
    durationSeconds: 10,
    scenarios: {
      "prod-stream": {
        direct: production(0, 0, 301),
        "bare-proxy": production(1000, 100, 301.5),
        sovra: production(1400, 160, 302.5),
      },
      "prod-non-stream": {
        direct: production(0, 0, 801),
        "bare-proxy": production(200, 100, 801.2),
        sovra: production(400, 120, 803.5, 3),
      },
    },
  };
  const byName = new Map(targetRows(results).map((r) => [r.name, r]));
  const row = (name: string) => byName.get(name)!;
  assert.equal(row("production-shaped: CPU per streamed request ÷ bare proxy").met, true);
  assert.equal(
    row("production-shaped: CPU per streamed request ÷ bare proxy").measured,
    "1.40× (1,400 µs / 1,000 µs)",
  );
  // 2× the bare proxy, and errors besides.
  assert.equal(row("production-shaped: CPU per non-stream request ÷ bare proxy").met, false);
  assert.equal(row("production-shaped stream: added first byte p99").met, true); // 1.5 ms
  assert.equal(row("production-shaped non-stream: added first byte p99").met, false); // 2.5 ms
  // 160 KiB against 100: 1.6×.
  assert.equal(row("production-shaped: memory per open stream ÷ bare proxy").met, false);
  // The sample has no stream scenario: its rows are not measured, not met.
  assert.equal(row("instant: stream req/s ÷ bare proxy").met, undefined);
  assert.equal(row("instant: 500 paced streams/s, added p99").met, undefined);
  assert.match(
    renderMarkdown(results),
    /\| instant: stream req\/s ÷ bare proxy \| – \| ≥ 40 % \| not measured \|/,
  );
  // A peer that could not serve the streams is behind on those rows; one that ran is compared.
  results.peers = { portkey: { version: "1.15.2", failed: { "prod-stream": "answered 500" } } };
  results.production!.scenarios["prod-non-stream"]!.portkey = production(2000, 300, 900);
  const peers = targetRows(results).filter((r) => r.name.startsWith("ahead of portkey"));
  assert.deepEqual(
    peers.filter((r) => r.name.includes("production")).map((r) => r.met),
    [true, false, true, false, true], // Sovra's non-stream rows carry its 3 errors
  );
  assert.match(peers[0]!.measured, /peer could not serve it/);
  // A peer that answered nothing in full has no first byte (null through JSON): it is behind.
  const none = production(2000, 300, 900, 385);
  none.ttfb = JSON.parse(JSON.stringify({ ...none.ttfb, p50: NaN, p99: NaN }));
  results.production!.scenarios["prod-non-stream"]!.portkey = none;
  const firstByte = targetRows(results).find((r) =>
    r.name === "ahead of portkey: production-shaped non-stream: added first byte p99"
  )!;
  assert.match(firstByte.measured, /\/ none answered in full \(peer: 385 errors\)/);
  assert.equal(firstByte.met, false, "Sovra's own 3 errors in that scenario");
  results.production!.scenarios["prod-non-stream"]!.sovra!.errors = 0;
  assert.equal(
    targetRows(results).find((r) => r.name === firstByte.name)!.met,
    true,
    "ahead of a peer that answered nothing",
  );
  results.production!.scenarios["prod-non-stream"]!.sovra!.errors = 3;
  // A warm-up shorter than two response times (1.35 s here) leaves the window unsteady.
  results.production!.warmupSeconds = 2;
  const unsteady = targetRows(results).find((r) =>
    r.name === "production-shaped: CPU per streamed request ÷ bare proxy"
  )!;
  assert.equal(unsteady.met, undefined);
  assert.match(unsteady.measured, /not steady: sovra, bare-proxy/);
});

Deno.test("threadGroup — the main isolate, worker isolates, KV writers, V8 helpers, the rest", () => {
  assert.equal(threadGroup(10, 10, "deno"), "main");
  assert.equal(threadGroup(10, 12, "worker-1"), "workers");
  assert.equal(threadGroup(10, 13, "sw-0"), "kv");
  assert.equal(threadGroup(10, 14, "V8 DefaultWorke"), "v8");
  assert.equal(threadGroup(10, 15, "tokio-runtime-w"), "io");
});

Deno.test("workersScaling — req/s per core used, extrapolated at the 2-isolate figure", () => {
  const results = sampleResults(0.9, 12_000, 120 * 1024);
  const closed = results.scenarios["non-stream"]!.sovra!.closed!;
  assert.equal(workersScaling(results), undefined);
  results.workers = {
    1: { ...closed, requestsPerSecond: 5_000, seconds: 10, cpuSeconds: 10 }, // 1 core
    2: { ...closed, requestsPerSecond: 8_000, seconds: 10, cpuSeconds: 18 }, // 1.8 cores
  };
  const scaling = workersScaling(results)!;
  assert.equal(scaling.perCore1, 5_000);
  assert.ok(Math.abs(scaling.perCore2 - 8_000 / 1.8) < 1e-9);
  assert.ok(Math.abs(scaling.efficiency - 8_000 / 1.8 / 5_000) < 1e-9);
  assert.ok(Math.abs(scaling.extrapolated - 16 * 8_000 / 1.8) < 1e-6);
});

Deno.test("parseRunParts — every scenario and part by name; an unknown name is an error", () => {
  assert.deepEqual(parseRunParts("prod-stream, workers"), ["prod-stream", "workers"]);
  assert.throws(() => parseRunParts("prod-streams"), /Unknown --scenarios 'prod-streams'/);
});
