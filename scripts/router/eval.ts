/**
 * `deno task eval-router`: the smart router's offline evaluation on RouteLLM's labelled data
 * (`../shared/data/routellm/`, read in place), on held-out splits only:
 *   - MMLU: whole subjects held out (5 folds of subjects; each fold trained on the other
 *     subjects plus GSM8K and MT-Bench);
 *   - GSM8K: trained on MMLU + MT-Bench;  MT-Bench: trained on MMLU + GSM8K.
 * Per data set: APGR, strong calls for 50 % / 80 % of the quality gap and for 95 % of the strong
 * model's quality, with 95 % bootstrap intervals (1,000 resamples), beside random routing,
 * prompt length alone and always-strong; then, for every dial value 1–10, the traffic split a
 * two-model pool gets from the gateway's own decision code, the cost per 1,000 requests and the
 * quality reached relative to always-strong, beside random routing at equal cost. Last, the
 * scorer's latency. The last line printed is one JSON object (the operator contract).
 */
import process from "node:process";
import { dataPresent, type DataSetName, type Item, loadAll } from "./data.ts";
import { featuresOf, fit } from "./fit.ts";
import { RECIPE } from "./recipe.ts";
import { bootstrap, type Interval, metricsOf, qualityCurve } from "./metrics.ts";
import {
  type ClassifierWeights,
  classifyFeatures,
  classifyText,
  logit,
} from "../../src/smart_router/classifier.ts";
import {
  decide,
  type RequestNeeds,
  TYPICAL_COMPLETION_TOKENS,
} from "../../src/smart_router/decide.ts";
import { modelsFileSchema } from "../../src/catalog/schema.ts";
import { DIALECTS } from "../../src/providers/registry.ts";
import type { Model } from "../../src/catalog/schema.ts";
import { RoutingPolicy } from "../../src/smart_router/policy.ts";

const WEAK_MODEL = "mistral/mistral-small-2506";
const STRONG_MODEL = "mistral/mistral-large-2512";

if (!(await dataPresent())) {
  console.log(JSON.stringify({ skipped: "../shared/data/routellm/ not found beside the project" }));
  Deno.exit(0);
}

const data = await loadAll();
const resamples = Number(Deno.env.get("SOVRA_EVAL_RESAMPLES") ?? 1000);

function difficulty(weights: ClassifierWeights, items: readonly Item[]): number[] {
  return items.map((i) => classifyFeatures(weights, featuresOf(i.prompt)).difficulty);
}

/** Held-out difficulty for every item of every data set. */
function heldOutScores(): Record<DataSetName, number[]> {
  const subjects = [...new Set(data.mmlu.map((i) => i.group))].sort();
  const mmlu = new Array<number>(data.mmlu.length);
  for (let fold = 0; fold < 5; fold++) {
    const test = new Set(subjects.filter((_, k) => k % 5 === fold));
    const w = fit({
      mmlu: data.mmlu.filter((i) => !test.has(i.group)),
      gsm8k: data.gsm8k,
      mt_bench: data.mt_bench,
    }, RECIPE);
    data.mmlu.forEach((item, k) => {
      if (test.has(item.group)) mmlu[k] = classifyFeatures(w, featuresOf(item.prompt)).difficulty;
    });
  }
  return {
    mmlu,
    gsm8k: difficulty(fit({ mmlu: data.mmlu, mt_bench: data.mt_bench }, RECIPE), data.gsm8k),
    mt_bench: difficulty(fit({ mmlu: data.mmlu, gsm8k: data.gsm8k }, RECIPE), data.mt_bench),
  };
}

/**
 * Not a claim, an upper bound: a logistic fit on the data set itself (5 folds within it, every
 * dense feature plus hashed word uni/bigrams), i.e. what prompt features reach when they may
 * learn this very distribution. Where it is no better than prompt length, no cheap prompt-only
 * scorer will beat length there.
 */
function inDistributionCeiling(name: DataSetName): number[] {
  const items = data[name];
  const scores = new Array<number>(items.length);
  for (let fold = 0; fold < 5; fold++) {
    const w = fit({ [name]: items.filter((_, k) => k % 5 !== fold) }, {
      grams: true,
      l2Dense: 1e-3,
      l2Grams: 1e-2,
      epochs: 300,
    });
    items.forEach((item, k) => {
      if (k % 5 === fold) scores[k] = logit(w, featuresOf(item.prompt));
    });
  }
  return scores;
}

const catalog = modelsFileSchema(DIALECTS).parse(
  JSON.parse(await Deno.readTextFile(new URL("../../catalog/models.json", import.meta.url))),
);
const byId = new Map<string, Model>(catalog.models.map((m) => [m.id, m]));
const pool = [WEAK_MODEL, STRONG_MODEL];

function cost(model: Model, item: Item): number {
  const prompt = Math.ceil(item.prompt.length / 4);
  return (prompt * (model.pricing.prompt_micro_eur_per_million ?? 0) +
    TYPICAL_COMPLETION_TOKENS * (model.pricing.completion_micro_eur_per_million ?? 0)) / 1e6;
}

interface DialRow {
  threshold: number;
  share: Record<string, number>;
  cost_per_1000_requests_micro_eur: number;
  quality_vs_strong: number;
  random_equal_cost_quality_vs_strong: number;
}

function dialTable(items: readonly Item[], scores: readonly number[]): DialRow[] {
  const strongQ = items.reduce((s, i) => s + i.strong, 0) / items.length;
  const weakQ = items.reduce((s, i) => s + i.weak, 0) / items.length;
  const rows: DialRow[] = [];
  for (let t = 1; t <= 10; t++) {
    const policy = RoutingPolicy.parse({ id: "eval", pool, threshold: t });
    let strong = 0;
    let spend = 0;
    let quality = 0;
    items.forEach((item, k) => {
      const needs: RequestNeeds = {
        tools: false,
        reasoning: false,
        responseFormat: false,
        promptTokens: Math.ceil(item.prompt.length / 4),
        maxTokens: undefined,
      };
      const chosen = decide({
        policy,
        model: (id) => byId.get(id),
        needs,
        classification: { difficulty: scores[k]!, task: "general", noSignal: false },
        threshold: t,
        health: () => undefined,
      }).order[0]!;
      const isStrong = chosen.id === STRONG_MODEL;
      if (isStrong) strong++;
      spend += cost(chosen, item);
      quality += isStrong ? item.strong : item.weak;
    });
    const share = strong / items.length;
    rows.push({
      threshold: t,
      share: { [WEAK_MODEL]: round(1 - share), [STRONG_MODEL]: round(share) },
      cost_per_1000_requests_micro_eur: Math.round((spend / items.length) * 1000),
      quality_vs_strong: round(quality / items.length / strongQ),
      random_equal_cost_quality_vs_strong: round((weakQ + share * (strongQ - weakQ)) / strongQ),
    });
  }
  return rows;
}

function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

const fmt = (i: Interval) => `${i.value.toFixed(3)} [${i.lo.toFixed(3)}, ${i.hi.toFixed(3)}]`;

/**
 * Scorer latency, p99 over 2,000 calls per size: wall clock, and the process's CPU time per
 * call (the gate: on a shared machine the wall-clock tail measures the scheduler, not us).
 */
function latency(): Record<string, number> {
  const sizes: Record<string, number> = {
    "200_chars": 200,
    "2_kb": 2048,
    "2_mib": 2 * 1024 * 1024,
  };
  const words = "Explain step by step why the integral of 3x^2 from 0 to 2 equals 8, then ";
  const out: Record<string, number> = {};
  const runs = 2000;
  const p99 = (xs: number[]) => round(xs.sort((a, b) => a - b)[Math.floor(0.99 * (runs - 1))]!, 4);
  for (const [name, size] of Object.entries(sizes)) {
    const text = words.repeat(Math.ceil(size / words.length)).slice(0, size);
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < 200; r++) classifyText(text);
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      classifyText(text);
      const c = process.cpuUsage(c0);
      wall.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
    }
    out[`p99_wall_ms_${name}`] = p99(wall);
    out[`p99_cpu_ms_${name}`] = p99(cpu);
  }
  return out;
}

const scores = heldOutScores();
const report: Record<string, unknown> = {};
const gates: Record<string, boolean> = {};
for (const name of ["mmlu", "gsm8k", "mt_bench"] as const) {
  const items = data[name];
  const m = bootstrap(items, scores[name], resamples);
  const length = metricsOf(qualityCurve(items, items.map((i) => i.prompt.length)));
  const strongQ = m.strongQuality.value;
  const weakQ = m.weakQuality.value;
  const randomAt95 = Math.min(1, Math.max(0, (0.95 * strongQ - weakQ) / (strongQ - weakQ)));
  const dial = dialTable(items, scores[name]);
  const ceiling = name === "gsm8k"
    ? metricsOf(qualityCurve(items, inDistributionCeiling(name)))
    : undefined;
  report[name] = {
    n: items.length,
    split: name === "mmlu"
      ? "57 subjects in 5 folds, whole subjects held out"
      : `trained without ${name}`,
    apgr: round(m.apgr.value),
    apgr_ci95: [round(m.apgr.lo), round(m.apgr.hi)],
    strong_calls_at_50pct_gap: round(m.cpt50.value),
    strong_calls_at_50pct_gap_ci95: [round(m.cpt50.lo), round(m.cpt50.hi)],
    strong_calls_at_80pct_gap: round(m.cpt80.value),
    strong_calls_at_80pct_gap_ci95: [round(m.cpt80.lo), round(m.cpt80.hi)],
    strong_calls_at_95: round(m.strongCallsAt95.value),
    strong_calls_at_95_ci95: [round(m.strongCallsAt95.lo), round(m.strongCallsAt95.hi)],
    strong_quality: round(strongQ),
    weak_quality: round(weakQ),
    baselines: {
      random: {
        apgr: 0.5,
        strong_calls_at_50pct_gap: 0.5,
        strong_calls_at_80pct_gap: 0.8,
        strong_calls_at_95: round(randomAt95),
      },
      length_only: {
        apgr: round(length.apgr),
        strong_calls_at_50pct_gap: round(length.cpt50),
        strong_calls_at_80pct_gap: round(length.cpt80),
        strong_calls_at_95: round(length.strongCallsAt95),
      },
      always_strong: { strong_calls: 1, quality_vs_strong: 1 },
      ...(ceiling
        ? {
          in_distribution_fit: {
            note:
              "5 folds within the set itself, dense + hashed n-grams: an upper bound, not a claim",
            apgr: round(ceiling.apgr),
            strong_calls_at_95: round(ceiling.strongCallsAt95),
          },
        }
        : {}),
    },
    dial: { pool: [WEAK_MODEL, STRONG_MODEL], rows: dial },
  };
  gates[`${name}_not_below_random`] = m.apgr.value >= 0.5;
  console.log(`\n${name} (n=${items.length}, held out)`);
  console.log(`  APGR ${fmt(m.apgr)}   length-only ${length.apgr.toFixed(3)}   random 0.500`);
  console.log(`  strong calls @50% gap ${fmt(m.cpt50)}  @80% gap ${fmt(m.cpt80)}`);
  console.log(
    `  strong calls @95% of strong quality ${fmt(m.strongCallsAt95)}   length-only ${
      length.strongCallsAt95.toFixed(3)
    }   random ${randomAt95.toFixed(3)}`,
  );
  if (ceiling) {
    console.log(
      `  upper bound, fitted on ${name} itself (5 folds, dense + n-grams): APGR ${
        ceiling.apgr.toFixed(3)
      }, strong calls @95% ${ceiling.strongCallsAt95.toFixed(3)}`,
    );
  }
  printDial(dial);
}

function printDial(rows: readonly DialRow[]): void {
  console.log("  T  strong%  cost/1000 req (µEUR)  quality vs strong  random at equal cost");
  for (const r of rows) {
    console.log(
      `  ${String(r.threshold).padStart(2)} ${
        (100 * r.share[STRONG_MODEL]!).toFixed(1).padStart(6)
      }  ${String(r.cost_per_1000_requests_micro_eur).padStart(20)}  ${
        r.quality_vs_strong.toFixed(3).padStart(17)
      }  ${r.random_equal_cost_quality_vs_strong.toFixed(3).padStart(20)}`,
    );
  }
}
// The reference mix: the three data sets weighted equally (what the difficulty scale is
// calibrated on). Each figure is the mean of the three tables.
const tables = (["mmlu", "gsm8k", "mt_bench"] as const).map((n) =>
  (report[n] as { dial: { rows: DialRow[] } }).dial.rows
);
const mix = tables[0]!.map((row, k) => {
  const mean = (f: (r: DialRow) => number) => tables.reduce((s, t) => s + f(t[k]!), 0) / 3;
  const strongShare = mean((r) => r.share[STRONG_MODEL]!);
  return {
    threshold: row.threshold,
    share: { [WEAK_MODEL]: round(1 - strongShare), [STRONG_MODEL]: round(strongShare) },
    cost_per_1000_requests_micro_eur: Math.round(mean((r) => r.cost_per_1000_requests_micro_eur)),
    quality_vs_strong: round(mean((r) => r.quality_vs_strong)),
    random_equal_cost_quality_vs_strong: round(mean((r) => r.random_equal_cost_quality_vs_strong)),
  };
});
report.reference_mix = { dial: { pool: [WEAK_MODEL, STRONG_MODEL], rows: mix } };
console.log("\nreference mix (the three sets weighted equally)");
printDial(mix);

const mmlu = report.mmlu as { strong_calls_at_95: number };
const gsm8k = report.gsm8k as { strong_calls_at_95: number };
const mtBench = report.mt_bench as { apgr: number };
gates.mmlu_strong_calls_at_95_le_routellm_0_54 = mmlu.strong_calls_at_95 <= 0.54;
gates.gsm8k_strong_calls_at_95_le_routellm_0_65 = gsm8k.strong_calls_at_95 <= 0.65;
gates.mt_bench_apgr_ge_0_65 = mtBench.apgr >= 0.65;
const timing = latency();
gates.scorer_p99_cpu_under_1ms_on_2mib = (timing.p99_cpu_ms_2_mib ?? Infinity) < 1;
console.log(`\nscorer p99: ${JSON.stringify(timing)}`);
console.log(`gates: ${JSON.stringify(gates)}\n`);
console.log(JSON.stringify({ ...report, scorer_latency: timing, gates }));
