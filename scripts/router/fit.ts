/**
 * Fits the classifier's logistic weights on labelled items (`train.ts` for the shipped
 * weights, `eval.ts` for each held-out fold). Target: "the weak model is not enough" — on
 * MMLU/GSM8K the strong model right and the weak one wrong; on MT-Bench a judge-score gap of at
 * least one point. Each data set weighs the same in the loss, so 14k MMLU questions do not
 * drown 72 chat prompts. L2-regularised, full-batch Adam; deterministic.
 */
import type { ClassifierWeights } from "../../src/smart_router/classifier.ts";
import { logit } from "../../src/smart_router/classifier.ts";
import {
  extractFeatures,
  FEATURE_NAMES,
  type Features,
  HASH_BUCKETS,
} from "../../src/smart_router/features.ts";
import type { Item } from "./data.ts";

export interface FitOptions {
  grams: boolean;
  l2Dense: number;
  l2Grams: number;
  epochs: number;
  /** Feature names the fit may use (the rest stay 0). */
  use?: readonly string[];
  /** Features held at a fixed weight (priors), not fitted. */
  fixed?: Readonly<Record<string, number>>;
}

export const DEFAULT_FIT: FitOptions = { grams: false, l2Dense: 1e-3, l2Grams: 1e-2, epochs: 300 };

export function target(item: Item, set: string): number {
  if (set === "mt_bench") return item.strong - item.weak >= 1 ? 1 : 0;
  return item.strong > item.weak ? 1 : 0;
}

const featureCache = new Map<string, Features>();
export function featuresOf(prompt: string): Features {
  let f = featureCache.get(prompt);
  if (!f) {
    f = extractFeatures(prompt);
    featureCache.set(prompt, f);
  }
  return f;
}

export function fit(
  sets: Record<string, readonly Item[]>,
  options: FitOptions = DEFAULT_FIT,
): ClassifierWeights {
  const names = Object.keys(sets).filter((s) => sets[s]!.length > 0);
  const rows: { f: Features; y: number; w: number; set: number }[] = [];
  for (const [set, name] of names.entries()) {
    const items = sets[name]!;
    for (const item of items) {
      const w = 1 / (items.length * names.length);
      rows.push({ f: featuresOf(item.prompt), y: target(item, name), w, set });
    }
  }
  const d = FEATURE_NAMES.length;
  const fixed = options.fixed ?? {};
  const fitted = FEATURE_NAMES.map((n) =>
    !(n in fixed) && (!options.use || options.use.includes(n))
  );
  // Standardise the fitted features (weighted), so Adam converges whatever their scale.
  const mean = new Float64Array(d);
  const sd = new Float64Array(d).fill(1);
  for (let i = 0; i < d; i++) {
    if (!fitted[i]) continue;
    let mu = 0;
    let sq = 0;
    for (const r of rows) mu += r.w * r.f.dense[i]!;
    for (const r of rows) sq += r.w * (r.f.dense[i]! - mu) ** 2;
    mean[i] = mu;
    sd[i] = Math.sqrt(sq) || 1;
  }
  const x = rows.map((r) =>
    Float64Array.from(r.f.dense, (v, i) => fitted[i] ? (v - mean[i]!) / sd[i]! : v)
  );
  // Parameters: one intercept per data set while fitting (their mean is kept): the features
  // learn what makes a prompt harder than others of its kind, not which data set it came from.
  const k0 = names.length;
  const grams = options.grams ? HASH_BUCKETS : 0;
  const size = k0 + d + grams;
  const theta = new Float64Array(size);
  for (let i = 0; i < d; i++) theta[k0 + i] = fixed[FEATURE_NAMES[i]!] ?? 0;
  const m = new Float64Array(size);
  const v = new Float64Array(size);
  const grad = new Float64Array(size);
  const lr = 0.05;
  for (let epoch = 1; epoch <= options.epochs; epoch++) {
    grad.fill(0);
    for (const [r, row] of rows.entries()) {
      const xr = x[r]!;
      let z = theta[row.set]!;
      for (let i = 0; i < d; i++) z += theta[k0 + i]! * xr[i]!;
      const gn = row.f.grams.length;
      if (grams && gn) {
        let sg = 0;
        for (const g of row.f.grams) sg += theta[k0 + d + g]!;
        z += sg / Math.sqrt(gn);
      }
      const e = (1 / (1 + Math.exp(-z)) - row.y) * row.w;
      grad[row.set]! += e;
      for (let i = 0; i < d; i++) grad[k0 + i]! += e * xr[i]!;
      if (grams && gn) {
        const scale = e / Math.sqrt(gn);
        for (const g of row.f.grams) grad[k0 + d + g]! += scale;
      }
    }
    for (let k = 0; k < size; k++) {
      if (k >= k0 && k < k0 + d && !fitted[k - k0]) continue;
      if (k >= k0) grad[k]! += (k < k0 + d ? options.l2Dense : options.l2Grams) * theta[k]!;
      m[k] = 0.9 * m[k]! + 0.1 * grad[k]!;
      v[k] = 0.999 * v[k]! + 0.001 * grad[k]! ** 2;
      theta[k]! -= lr * (m[k]! / (1 - 0.9 ** epoch)) /
        (Math.sqrt(v[k]! / (1 - 0.999 ** epoch)) + 1e-8);
    }
  }
  let bias = 0;
  for (let k = 0; k < k0; k++) bias += theta[k]! / k0;
  const dense = new Array<number>(d).fill(0);
  for (let i = 0; i < d; i++) {
    dense[i] = round(fitted[i] ? theta[k0 + i]! / sd[i]! : theta[k0 + i]!);
    if (fitted[i]) bias -= (theta[k0 + i]! * mean[i]!) / sd[i]!;
  }
  const weights: ClassifierWeights = {
    feature_names: [...FEATURE_NAMES],
    bias: round(bias),
    dense,
    grams: grams ? Array.from(theta.subarray(k0 + d), round) : [],
    quantiles: [],
    no_signal_quantiles: [],
  };
  const z = rows.map((r) => ({ z: logit(weights, r.f), w: r.w, none: r.f.tasks.length === 0 }));
  weights.quantiles = weightedQuantiles(z);
  weights.no_signal_quantiles = weightedQuantiles(z.filter((r) => r.none));
  return weights;
}

/** 101 weighted percentiles of the training logits: the reference traffic. */
function weightedQuantiles(values: { z: number; w: number }[]): number[] {
  const scored = values.sort((a, b) => a.z - b.z);
  const total = scored.reduce((s, r) => s + r.w, 0);
  const knots: number[] = [];
  let acc = 0;
  let k = 0;
  for (let q = 0; q <= 100; q++) {
    const goal = (q / 100) * total;
    while (k < scored.length - 1 && acc + scored[k]!.w < goal) acc += scored[k++]!.w;
    knots.push(round(scored[k]!.z));
  }
  // Strictly increasing knots keep the mapping well defined.
  for (let i = 1; i < knots.length; i++) {
    if (knots[i]! <= knots[i - 1]!) knots[i] = knots[i - 1]! + 1e-6;
  }
  return knots;
}

export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
