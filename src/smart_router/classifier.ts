/**
 * The request classifier: features → logistic score → difficulty in [0, 1] through a quantile
 * table of the reference sample (so difficulty is uniform on reference traffic and the dial
 * moves a steady share per step). No network, no downloaded weights: the weights are the
 * committed `classifier_weights.json`, written by `scripts/router/train.ts`.
 *
 * "No signal" (no task flag fired): the difficulty is 0.25 + 0.5·q, q the prompt's quantile
 * among the reference's no-signal prompts. A prompt the classifier knows nothing about thus
 * lands in the middle band [0.25, 0.75], never on the cheapest tier at a middle dial (the
 * field's most-reported router failure), and the length ranking among such prompts is kept.
 * An empty text is exactly 0.5.
 */
import { extractFeatures, type Features, HASH_BUCKETS, type Task, TASKS } from "./features.ts";
import weightsFile from "./classifier_weights.json" with { type: "json" };

export interface ClassifierWeights {
  feature_names: string[];
  bias: number;
  dense: number[];
  /** Hashed n-gram weights (`HASH_BUCKETS` long), or empty when n-grams are off. */
  grams: number[];
  /** 101 knots: the logit at each percentile of the reference sample. */
  quantiles: number[];
  /** 101 knots over the reference's no-signal prompts only. */
  no_signal_quantiles: number[];
}

export interface Classification {
  /** 0 (easy) … 1 (hard), uniform on reference traffic. */
  difficulty: number;
  task: Task;
  /** No task flag fired (difficulty pulled to the middle), or no text at all. */
  noSignal: boolean;
}

/** Priority when several task flags fire: the most demanding first. */
const TASK_PRIORITY: readonly (typeof TASKS[number])[] = [
  "code",
  "math",
  "reasoning",
  "extraction",
  "translation",
  "writing",
  "roleplay",
  "chat",
];

export function logit(weights: ClassifierWeights, f: Features): number {
  let z = weights.bias;
  for (let i = 0; i < f.dense.length; i++) z += (weights.dense[i] ?? 0) * f.dense[i]!;
  if (weights.grams.length === HASH_BUCKETS && f.grams.length > 0) {
    let s = 0;
    for (const g of f.grams) s += weights.grams[g]!;
    z += s / Math.sqrt(f.grams.length);
  }
  return z;
}

/** The share of the reference sample scoring below `z`, interpolated between knots. */
export function quantileOf(knots: readonly number[], z: number): number {
  const last = knots.length - 1;
  if (last < 1 || z <= knots[0]!) return 0;
  if (z >= knots[last]!) return 1;
  let lo = 0;
  let hi = last;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (knots[mid]! <= z) lo = mid;
    else hi = mid;
  }
  const span = knots[hi]! - knots[lo]!;
  const frac = span > 0 ? (z - knots[lo]!) / span : 0.5;
  return (lo + frac) / last;
}

export function classifyFeatures(weights: ClassifierWeights, f: Features): Classification {
  if (f.length === 0) return { difficulty: 0.5, task: "general", noSignal: true };
  const task = TASK_PRIORITY.find((t) => f.tasks.includes(t)) ?? "general";
  const z = logit(weights, f);
  if (f.tasks.length === 0) {
    return {
      difficulty: 0.25 + 0.5 * quantileOf(weights.no_signal_quantiles, z),
      task,
      noSignal: true,
    };
  }
  return { difficulty: quantileOf(weights.quantiles, z), task, noSignal: false };
}

export const shippedWeights: ClassifierWeights = weightsFile as ClassifierWeights;

export function classifyText(text: string, weights = shippedWeights): Classification {
  const grams = weights.grams.length === HASH_BUCKETS;
  return classifyFeatures(weights, extractFeatures(text, { grams }));
}
