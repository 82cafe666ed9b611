/**
 * `deno run --allow-read --allow-env scripts/router/maths_probe.ts`: why the GSM8K gate of
 * `eval-router` stays open. Nothing here ships. A logistic model on 19 maths word-problem
 * features (length, sentences, quantities, fractions, rates, conditions, comparisons, money,
 * time, decimals, the question sentence …), measured with RouteLLM's metrics on GSM8K two ways:
 *
 *   1. fitted on GSM8K itself, 5 folds within the set: what the features can learn when they
 *      may see this distribution (not the gate's protocol, which trains on another data set);
 *   2. fitted on MMLU's mathematics and statistics subjects (the only other labelled maths in
 *      RouteLLM's data; answer options stripped), tested on GSM8K: the gate's protocol.
 *
 * Prints one line per run. Reads `../shared/data/routellm/` in place.
 */
import { dataPresent, type Item, loadGsm8k, loadMmlu } from "./data.ts";
import { metricsOf, qualityCurve } from "./metrics.ts";

if (!(await dataPresent())) {
  console.log("../shared/data/routellm/ not found beside the project");
  Deno.exit(0);
}

const NUMBER = /\d+(?:[.,]\d+)*/g;
const count = (s: string, r: RegExp) => (s.match(r) ?? []).length;

export function mathsFeatures(s: string): number[] {
  const words = s.split(/\s+/).filter(Boolean);
  const sentences = s.split(/[.?!]+\s/).filter(Boolean);
  const numbers = s.match(NUMBER) ?? [];
  const question = sentences[sentences.length - 1] ?? "";
  return [
    Math.log1p(s.length),
    Math.log1p(words.length),
    Math.log1p(sentences.length),
    Math.log1p(numbers.length),
    Math.log1p(new Set(numbers).size),
    count(s, /%|percent/gi),
    count(s, /\d\/\d|\bhalf\b|\bthird\b|quarter|twice|double|triple/gi),
    count(s, /\beach\b|\bper\b|\bevery\b/gi),
    count(s, /\bif\b|\bwhen\b|\bafter\b|\bthen\b/gi),
    count(s, /\bmore\b|\bless\b|\bfewer\b|\bthan\b/gi),
    count(s, /\bremain|\bleft\b|\brest\b/gi),
    count(s, /\$|dollars?|cents?/gi),
    count(s, /hours?|minutes?|days?|weeks?|months?|years?/gi),
    count(s, /\d\.\d/g),
    count(s, /\d{3,}/g),
    Math.log1p(question.length),
    count(question, /\band\b/gi),
    words.reduce((a, w) => a + w.length, 0) / Math.max(1, words.length),
    count(s, /,/g) / Math.max(1, sentences.length),
  ];
}

/** L2-regularised logistic regression on standardised features; returns the scorer. */
function fitLogistic(x: number[][], y: number[], l2: number): (row: number[]) => number {
  const d = x[0]!.length;
  const n = x.length;
  const mean = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  for (const row of x) row.forEach((v, j) => (mean[j]! += v / n));
  for (const row of x) row.forEach((v, j) => (sd[j]! += (v - mean[j]!) ** 2 / n));
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]!) || 1;
  const z = x.map((row) => row.map((v, j) => (v - mean[j]!) / sd[j]!));
  const w = new Array<number>(d).fill(0);
  let b = 0;
  for (let epoch = 0; epoch < 500; epoch++) {
    const gw = new Array<number>(d).fill(0);
    let gb = 0;
    z.forEach((row, i) => {
      const p = 1 / (1 + Math.exp(-(b + row.reduce((a, v, j) => a + v * w[j]!, 0))));
      const e = p - y[i]!;
      gb += e;
      row.forEach((v, j) => (gw[j]! += e * v));
    });
    b -= (0.5 * gb) / n;
    for (let j = 0; j < d; j++) w[j]! -= 0.5 * (gw[j]! / n + l2 * w[j]!);
  }
  return (row) => b + row.reduce((a, v, j) => a + ((v - mean[j]!) / sd[j]!) * w[j]!, 0);
}

const target = (i: Item) => (i.strong > i.weak ? 1 : 0);
const stem = (s: string) => s.replace(/\n[A-E]\.[^\n]*/g, "").replace(/\nAnswer:\s*$/, "");
const show = (label: string, items: readonly Item[], scores: number[]) => {
  const m = metricsOf(qualityCurve(items, scores));
  console.log(
    `${label}: APGR ${m.apgr.toFixed(3)}, strong calls @95% ${
      (100 * m.strongCallsAt95).toFixed(1)
    } %`,
  );
};

const gsm8k = await loadGsm8k();
const features = gsm8k.map((i) => mathsFeatures(i.prompt));
show("GSM8K, prompt length alone", gsm8k, gsm8k.map((i) => i.prompt.length));

const inSet = new Array<number>(gsm8k.length).fill(0);
for (let fold = 0; fold < 5; fold++) {
  const train = gsm8k.map((_, k) => k).filter((k) => k % 5 !== fold);
  const score = fitLogistic(
    train.map((k) => features[k]!),
    train.map((k) => target(gsm8k[k]!)),
    0.1,
  );
  gsm8k.forEach((_, k) => {
    if (k % 5 === fold) inSet[k] = score(features[k]!);
  });
}
show("GSM8K, fitted on GSM8K itself (5 folds; not the gate's protocol)", gsm8k, inSet);

const mmluMaths = (await loadMmlu()).filter((i) => /mathematics|statistics/.test(i.group));
const transferred = fitLogistic(
  mmluMaths.map((i) => mathsFeatures(stem(i.prompt))),
  mmluMaths.map(target),
  0.1,
);
show(
  `GSM8K, fitted on MMLU mathematics/statistics (n=${mmluMaths.length}; the gate's protocol)`,
  gsm8k,
  features.map(transferred),
);
