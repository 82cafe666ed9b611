/**
 * `deno task eval-guardrail [--input FILE] [--shared DIR]`: the guardrail's evaluation.
 *
 * Input: JSON lines `{"text", "label": 1|0, "language", "channel": "user"|"tool"}` (optional
 * `kind`: attack, hard, prose, code); default: the held-out part of the team's own set
 * (rows.ts: isHeldOut), which training and threshold fitting never saw, and the
 * evaluation-only benign prose of external_prose.ts.
 *
 * Prints a Markdown report, then as its last line one JSON object: `recall` and
 * `false_positive_rate` at the block threshold, `recall_flag`, the benign subsets' rates with
 * Wilson 95 % intervals, `by_language`, `by_channel`, and `latency_us` at 0.2/2/8/32 KB.
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { Guardrail } from "../../src/guardrail/scanner.ts";
import { committedModel } from "../../src/guardrail/model.ts";
import { scanText } from "../../src/guardrail/scan_text.ts";
import { buildRows } from "./dataset.ts";
import { isHeldOut, type Row } from "./rows.ts";
import { externalProseRows, isDevelopmentProse } from "./external_prose.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    input: { type: "string" },
    shared: { type: "string", default: "../shared" },
    "latency-runs": { type: "string", default: "300" },
    // The development half of the external prose instead of its test half (for reading
    // false positives; the reported figures are the test half's).
    "external-development": { type: "boolean", default: false },
  },
});

const rows = args.input === undefined ? await heldOutRows() : await readInput(args.input);
const model = committedModel();
const results = rows.map((row) => ({ row, verdict: scanText(model, row.text, row.channel) }));
type Result = (typeof results)[number];

interface Rate {
  rate: number;
  hits: number;
  n: number;
  ci95: [number, number];
}

function rate(hits: number, n: number): Rate {
  return { rate: round(n === 0 ? 0 : hits / n), hits, n, ci95: wilson(hits, n) };
}

function summary(subset: Result[]) {
  const attacks = subset.filter((r) => r.row.label === 1);
  const benign = subset.filter((r) => r.row.label === 0);
  return {
    n: subset.length,
    attacks: attacks.length,
    benign: benign.length,
    recall: round(
      ratio(attacks.filter((r) => r.verdict.action === "block").length, attacks.length),
    ),
    recall_flag: round(
      ratio(attacks.filter((r) => r.verdict.action !== "pass").length, attacks.length),
    ),
    false_positive_rate: round(
      ratio(benign.filter((r) => r.verdict.action === "block").length, benign.length),
    ),
    false_positive_rate_flag: round(
      ratio(benign.filter((r) => r.verdict.action !== "pass").length, benign.length),
    ),
  };
}

const benign = results.filter((r) => r.row.label === 0);
const blocked = (subset: Result[]) => subset.filter((r) => r.verdict.action === "block").length;
const kindOf = (r: Result) =>
  r.row.language === "code" || r.row.kind === "code"
    ? "code"
    : r.row.kind === "hard"
    ? "hard"
    : "prose";
const EXTERNAL = new Set(["fortunes", "installation-guide"]);
const benignSets = {
  all: benign,
  hard: benign.filter((r) => kindOf(r) === "hard"),
  prose: benign.filter((r) => kindOf(r) === "prose"),
  // Evaluation-only prose (external_prose.ts): sources the training never saw.
  prose_external: benign.filter((r) => EXTERNAL.has(r.row.source)),
  code: benign.filter((r) => kindOf(r) === "code"),
};
const fpr = Object.fromEntries(
  Object.entries(benignSets).map(([name, set]) => [name, rate(blocked(set), set.length)]),
);
const fprFlag = Object.fromEntries(
  Object.entries(benignSets).map(([name, set]) => [
    name,
    rate(set.filter((r) => r.verdict.action !== "pass").length, set.length),
  ]),
);
const languages = [...new Set(results.map((r) => r.row.language))].sort();
const byLanguage = Object.fromEntries(
  languages.map((l) => [l, summary(results.filter((r) => r.row.language === l))]),
);
const byChannel = Object.fromEntries(
  ["user", "tool"].map((c) => [c, summary(results.filter((r) => r.row.channel === c))]),
);
const overall = summary(results);
const latency = measureLatency(Number(args["latency-runs"]));

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const ci = (r: Rate) =>
  `${pct(r.rate)} (${r.hits}/${r.n}; 95 % CI ${pct(r.ci95[0])}–${pct(r.ci95[1])})`;
console.log(`## Guardrail evaluation (${args.input ?? "held-out part of the team's set"})\n`);
console.log(
  `model ${model.manifest.version}, block ≥ ${model.manifest.block_threshold}, flag ≥ ${model.manifest.flag_threshold}\n`,
);
console.log(
  "| language / channel | attacks | benign | recall (block) | recall (flag) | FPR (block) | FPR (flag) |",
);
console.log("|---|---|---|---|---|---|---|");
for (
  const [name, s] of [
    ...Object.entries(byLanguage),
    ...Object.entries(byChannel),
    ["all", overall] as const,
  ]
) {
  console.log(
    `| ${name} | ${s.attacks} | ${s.benign} | ${s.attacks ? pct(s.recall) : "—"} | ${
      s.attacks ? pct(s.recall_flag) : "—"
    } | ${s.benign ? pct(s.false_positive_rate) : "—"} | ${
      s.benign ? pct(s.false_positive_rate_flag) : "—"
    } |`,
  );
}
console.log("\n| benign subset | FPR at block | FPR at flag |\n|---|---|---|");
for (const name of Object.keys(benignSets)) {
  console.log(`| ${name} | ${ci(fpr[name]!)} | ${ci(fprFlag[name]!)} |`);
}
console.log("\n| scanned text | wall p50 | wall p99 | CPU p50 | CPU p99 |\n|---|---|---|---|---|");
for (const [size, l] of Object.entries(latency)) {
  console.log(`| ${size} | ${l.p50} µs | ${l.p99} µs | ${l.cpu_p50} µs | ${l.cpu_p99} µs |`);
}
console.log("");
console.log(JSON.stringify({
  model: model.manifest.version,
  n: results.length,
  recall: overall.recall,
  recall_flag: overall.recall_flag,
  false_positive_rate: overall.false_positive_rate,
  false_positive_rate_flag: overall.false_positive_rate_flag,
  false_positive_rate_subsets: fpr,
  by_language: byLanguage,
  by_channel: byChannel,
  latency_us: latency,
}));

async function heldOutRows(): Promise<Row[]> {
  const root = new URL("../../", import.meta.url).pathname;
  const cache = `${root}data/guardrail`;
  const { rows, notes } = await buildRows({ shared: args.shared!, cache });
  const external = (await externalProseRows(cache, notes)).filter((r) =>
    isDevelopmentProse(r.text) === args["external-development"]
  );
  for (const note of notes) console.error(note);
  return [...rows.filter((r) => isHeldOut(r.text)), ...external];
}

async function readInput(path: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    if (line.trim() === "") continue;
    const item = JSON.parse(line) as Partial<Row>;
    rows.push({
      text: String(item.text ?? ""),
      label: item.label === 1 ? 1 : 0,
      language: item.language ?? "unknown",
      channel: item.channel === "tool" ? "tool" : "user",
      kind: item.kind ?? (item.label === 1 ? "attack" : "prose"),
      source: "input",
    });
  }
  return rows;
}

/**
 * Request-level scans (fresh cache each time, so nothing is a cache hit) of benign text of
 * 0.2, 2, 8 and 32 KB made from the benign rows, mixed languages, split into 2 KB units. Wall
 * time and process CPU time (on a shared machine the wall-clock tail mostly measures the
 * other processes).
 */
interface Latency {
  p50: number;
  p99: number;
  cpu_p50: number;
  cpu_p99: number;
}

function measureLatency(runs: number): Record<string, Latency> {
  const pool = benign.map((r) => r.row.text).join("\n");
  const source = pool.length > 40_000
    ? pool
    : pool.repeat(Math.ceil(40_000 / Math.max(1, pool.length)));
  const out: Record<string, Latency> = {};
  for (
    const [label, size] of [["0.2 KB", 200], ["2 KB", 2048], ["8 KB", 8192], [
      "32 KB",
      32768,
    ]] as const
  ) {
    const samples: number[] = [];
    const cpu: number[] = [];
    for (let run = 0; run < runs + 30; run++) {
      const offset = (run * 7919) % (source.length - size);
      const text = source.slice(offset, offset + size);
      const units = [];
      for (let i = 0; i < text.length; i += 2048) {
        units.push({
          path: `messages[${units.length}]`,
          role: "user",
          channel: "user" as const,
          text: text.slice(i, i + 2048),
        });
      }
      const guardrail = new Guardrail({ model });
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      guardrail.scan(units);
      const took = (performance.now() - started) * 1000;
      const used = process.cpuUsage(cpuBefore);
      if (run >= 30) {
        samples.push(took);
        cpu.push(used.user + used.system);
      }
    }
    const at = (list: number[], q: number) =>
      Math.round(
        list.sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * q))]!,
      );
    out[label] = {
      p50: at(samples, 0.5),
      p99: at(samples, 0.99),
      cpu_p50: at(cpu, 0.5),
      cpu_p99: at(cpu, 0.99),
    };
  }
  return out;
}

function ratio(a: number, b: number): number {
  return b === 0 ? 0 : a / b;
}

function wilson(hits: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = 1.96;
  const p = hits / n;
  const denominator = 1 + z * z / n;
  const centre = (p + z * z / (2 * n)) / denominator;
  const half = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator;
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}
