/**
 * `deno task bench-guardrail [--runs N] [--repeat K] [--stages]`: a CPU micro-benchmark of the
 * guardrail's request-level scan, for profiling (`deno run --cpu-prof …`) and for the latency
 * bar (p99 ≤ 1 ms at 32 KB).
 *
 * Two corpora, both benign (a benign request is the one that pays the whole scan; an attack
 * stops at nothing earlier, but benign text is what a guardrail scans all day):
 * - `eval`: the held-out benign rows of the team's set, mixed languages (the evaluation's own
 *   latency corpus);
 * - `dense`: the instruction-dense worst case: hard negatives only (system prompts that talk
 *   about instructions and rules, translated tool messages full of "ignore", "override", "skip"),
 *   every language, so the rule stage finds anchor words everywhere.
 *
 * Texts of 2 KB and 32 KB (in 2 KB units, like a chat history) are scanned with a fresh verdict
 * cache each run, so nothing is a cache hit; each run's process CPU time is one sample. Because
 * the machine may be shared, the whole measurement is repeated `--repeat` times and the best
 * (lowest) p50 and p99 of the repeats are reported: other processes can only add time.
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { Guardrail, type ScanUnit } from "../../src/guardrail/scanner.ts";
import { committedModel } from "../../src/guardrail/model.ts";
import { normalizeText } from "../../src/guardrail/normalize.ts";
import { decodeViews } from "../../src/guardrail/decode.ts";
import { matchRules } from "../../src/guardrail/rules/index.ts";
import { windowedLogit } from "../../src/guardrail/ngram_model.ts";
import { buildRows } from "./dataset.ts";
import { isHeldOut } from "./rows.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    shared: { type: "string", default: "../shared" },
    runs: { type: "string", default: "300" },
    repeat: { type: "string", default: "3" },
    stages: { type: "boolean", default: false },
  },
});

const root = new URL("../../", import.meta.url).pathname;
const { rows } = await buildRows({ shared: args.shared!, cache: `${root}data/guardrail` });
const benign = rows.filter((r) => r.label === 0);
const corpora: Record<string, string> = {
  eval: pool(benign.filter((r) => isHeldOut(r.text)).map((r) => r.text)),
  dense: pool(benign.filter((r) => r.kind === "hard").map((r) => r.text)),
};
const model = committedModel();
const runs = Number(args.runs);
const repeat = Number(args.repeat);

const report: Record<string, Record<string, { cpu_p50: number; cpu_p99: number }>> = {};
for (const [name, source] of Object.entries(corpora)) {
  report[name] = {};
  for (const [label, size] of [["2 KB", 2048], ["32 KB", 32768]] as const) {
    let best = { cpu_p50: Infinity, cpu_p99: Infinity };
    for (let r = 0; r < repeat; r++) {
      const m = measure(source, size);
      best = { cpu_p50: Math.min(best.cpu_p50, m.p50), cpu_p99: Math.min(best.cpu_p99, m.p99) };
    }
    report[name][label] = best;
    console.log(`${name} ${label}: CPU p50 ${best.cpu_p50} µs, p99 ${best.cpu_p99} µs`);
  }
}
if (args.stages) stages(corpora.dense!);
console.log(JSON.stringify({ runs, repeat, cpu_us: report }));

/** Joined texts, repeated until there are at least 256 KB to slice from. */
function pool(texts: string[]): string {
  const joined = texts.join("\n");
  return joined.repeat(Math.ceil(262_144 / Math.max(1, joined.length)));
}

function unitsOf(text: string): ScanUnit[] {
  const units: ScanUnit[] = [];
  for (let i = 0; i < text.length; i += 2048) {
    units.push({
      path: `messages[${units.length}]`,
      role: "user",
      channel: units.length % 2 === 0 ? "user" : "tool",
      text: text.slice(i, i + 2048),
    });
  }
  return units;
}

function measure(source: string, size: number): { p50: number; p99: number } {
  const cpu: number[] = [];
  for (let run = 0; run < runs + 30; run++) {
    const offset = (run * 7919) % (source.length - size);
    const units = unitsOf(source.slice(offset, offset + size));
    const guardrail = new Guardrail({ model });
    const before = process.cpuUsage();
    guardrail.scan(units);
    const used = process.cpuUsage(before);
    if (run >= 30) cpu.push(used.user + used.system);
  }
  cpu.sort((a, b) => a - b);
  const at = (q: number) => Math.round(cpu[Math.min(cpu.length - 1, Math.floor(cpu.length * q))]!);
  return { p50: at(0.5), p99: at(0.99) };
}

/** Mean wall time per 32 KB of each stage on its own (for finding the cost, not for the bar). */
function stages(source: string): void {
  const texts: string[] = [];
  for (let i = 0; i < 64; i++) {
    const offset = (i * 7919) % (source.length - 32768);
    texts.push(source.slice(offset, offset + 32768));
  }
  const normalized = texts.map((t) => normalizeText(t).text);
  const time = (name: string, fn: (i: number) => unknown) => {
    for (let i = 0; i < texts.length; i++) fn(i);
    const started = performance.now();
    for (let k = 0; k < 4; k++) for (let i = 0; i < texts.length; i++) fn(i);
    const us = (performance.now() - started) * 1000 / (4 * texts.length);
    console.log(`stage ${name}: ${us.toFixed(0)} µs per 32 KB`);
  };
  time("normalize", (i) => normalizeText(texts[i]!));
  time("decode", (i) => decodeViews(texts[i]!, normalized[i]!));
  time("rules", (i) => matchRules(normalized[i]!, i % 2 === 0 ? "user" : "tool"));
  time("model", (i) => windowedLogit(model, normalized[i]!));
}
