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
  assert.equal(good.length, 5);
  assert.ok(good.every((c) => c.pass), JSON.stringify(good));
  // Issue 15's non-stream limits are tighter: added p50 ≤ 0.5 ms and ≥ 60 % of the bare proxy.
  const near = checks(sampleResults(1.2, 10_000, 120 * 1024));
  assert.deepEqual(near.map((c) => [c.target, c.pass]).filter(([, pass]) => !pass), [
    ["≤ 0.5 ms", false],
    ["≥ 60 %", false],
  ]);
  const bad = checks(sampleResults(2.0, 8_000, 200 * 1024, 2.5));
  // added p50, added p99, loop delay p99, ÷ bare proxy, open-stream RSS
  assert.deepEqual(bad.map((c) => c.pass), [false, true, false, false, false]);
  const markdown = renderMarkdown(sampleResults(2.0, 8_000, 200 * 1024, 2.5));
  assert.match(markdown, /\| non-stream \| sovra \| 8,000 \| 44 % \| – \| 0 \|/);
  assert.match(
    markdown,
    /\| non-stream \| sovra \| 2\.00 ms \| 3\.00 ms \| 1\.50 ms \| 1\.50 ms \| 1\.50 ms \| 1\.50 ms \| 1\.00 ms \| 0\.75 ms \| 0\.75 ms \| 1\.50 \/ 2\.50 \/ 3\.50 ms \| 0 \|/,
  );
  assert.match(markdown, /\| MISS \|/);
  assert.match(markdown, /\| sovra: increment per open stream \| 123 KiB \|/);
});

Deno.test("peers — Sovra ÷ each peer per scenario, and the Sovra-ahead check", () => {
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
  const peerChecks = checks(results).filter((c) => c.name.includes("Sovra ÷"));
  assert.deepEqual(peerChecks.map((c) => [c.measured, c.pass]), [["2.00×", true], [
    "0.50×",
    false,
  ]]);
  const markdown = renderMarkdown(results);
  assert.match(markdown, /\| non-stream \| portkey \| 5,000 \| 2\.00× \|/);
  assert.match(markdown, /portkey 1\.15\.2 \(could not serve stream: answered 500\)/);
  results.peers = { litellm: { skipped: "install failed" } };
  assert.match(renderMarkdown(results), /litellm skipped \(install failed\)/);
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
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    await req.text();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (let i = 0; i < 3; i++) {
          controller.enqueue(new TextEncoder().encode(`data: {"i":${i}}\n\n`));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        controller.enqueue(new TextEncoder().encode("data: [DONE]\n\n"));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
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
