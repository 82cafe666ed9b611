/**
 * The scoring model: logistic regression over hashed character 3-, 4- and 5-grams of the
 * normalised text. A text's features are its n-gram counts divided by √(number of n-grams), so
 * a score is `bias + scale · Σ w[bucket] / √n`; computed per position once, windows of 1 KB
 * (stride 512) then cost two prefix-sum lookups each, and the text's score is the maximum over
 * its windows (a short injection inside a long benign document is not diluted).
 *
 * The weights are int8 in `model/weights.bin` (2^17 buckets), with scale, bias and thresholds
 * in `model/manifest.json`; both are written by `scripts/guardrail/train.ts`.
 */

export const BUCKET_BITS = 17;
export const BUCKETS = 1 << BUCKET_BITS;
export const WINDOW = 1024;
export const STRIDE = 512;
const MIN_N = 3;
const MAX_N = 5;

export interface ModelManifest {
  version: string;
  buckets: number;
  scale: number;
  bias: number;
  /** Model-score (probability) thresholds, fixed on out-of-fold training scores. */
  block_threshold: number;
  flag_threshold: number;
  [key: string]: unknown;
}

export interface NgramModel {
  manifest: ModelManifest;
  /** Dequantised weights (training and whole-text scoring). */
  weights: Float32Array;
  /** The committed int8 weights (window scoring sums these, then scales once). */
  quantised: Int8Array;
}

/** Calls `visit(position, bucket)` for every n-gram of `text` (n = 3..5). */
export function forEachNgram(
  text: string,
  visit: (position: number, bucket: number) => void,
): void {
  const length = text.length;
  for (let i = 0; i + MIN_N <= length; i++) {
    let h = 0x811c9dc5;
    for (let j = 0; j < MAX_N && i + j < length; j++) {
      h = Math.imul(h ^ text.charCodeAt(i + j), 0x01000193);
      if (j >= MIN_N - 1) visit(i, Math.imul(h, 0x9e3779b1) >>> (32 - BUCKET_BITS));
    }
  }
}

/** The model's raw logit for a whole text (training uses this, no windows). */
export function textLogit(weights: Float32Array, bias: number, text: string): number {
  let sum = 0;
  let count = 0;
  forEachNgram(text, (_, bucket) => {
    sum += weights[bucket]!;
    count++;
  });
  return count === 0 ? bias : bias + sum / Math.sqrt(count);
}

/** The maximum logit over 1 KB windows (stride 512) of `text`. */
export function windowedLogit(model: NgramModel, text: string): number {
  return logitOfBlocks(model, blockSums(model.quantised, text), text.length);
}

/**
 * The maximum window logit from the per-block sums of a text of `length` characters (the text
 * pass computes the sums together with the rules' anchors).
 */
export function logitOfBlocks(model: NgramModel, blocks: Int32Array, length: number): number {
  const { bias, scale } = model.manifest;
  if (length < MIN_N) return bias;
  let best = -Infinity;
  for (let k = 0;; k++) {
    const start = k * STRIDE;
    const end = Math.min(length, start + WINDOW);
    const count = ngramsBefore(end, length) - ngramsBefore(start, length);
    if (count > 0) {
      const sum = blocks[k]! + (k + 1 < blocks.length ? blocks[k + 1]! : 0);
      const logit = bias + sum * scale / Math.sqrt(count);
      if (logit > best) best = logit;
    }
    if (end >= length) break;
  }
  return best === -Infinity ? bias : best;
}

/**
 * The summed int8 weights of the n-grams starting in each 512-character block. The same hashes
 * as forEachNgram, unrolled; text_pass.ts computes the same sums in its one pass (a test holds
 * the two equal).
 */
export function blockSums(weights: Int8Array, text: string): Int32Array {
  const length = text.length;
  const blocks = new Int32Array(Math.ceil(length / STRIDE) + 1);
  const shift = 32 - BUCKET_BITS;
  for (let block = 0; block * STRIDE < length; block++) {
    const end = Math.min(length, (block + 1) * STRIDE);
    let sum = 0;
    for (let i = block * STRIDE; i < end; i++) {
      if (i + 2 >= length) break;
      let h = Math.imul(0x811c9dc5 ^ text.charCodeAt(i), 0x01000193);
      h = Math.imul(h ^ text.charCodeAt(i + 1), 0x01000193);
      h = Math.imul(h ^ text.charCodeAt(i + 2), 0x01000193);
      sum += weights[Math.imul(h, 0x9e3779b1) >>> shift]!;
      if (i + 3 < length) {
        h = Math.imul(h ^ text.charCodeAt(i + 3), 0x01000193);
        sum += weights[Math.imul(h, 0x9e3779b1) >>> shift]!;
        if (i + 4 < length) {
          h = Math.imul(h ^ text.charCodeAt(i + 4), 0x01000193);
          sum += weights[Math.imul(h, 0x9e3779b1) >>> shift]!;
        }
      }
    }
    blocks[block] = sum;
  }
  return blocks;
}

/** How many n-grams (n = 3..5) start before position p in a text of `length`. */
function ngramsBefore(p: number, length: number): number {
  let count = 0;
  for (let n = MIN_N; n <= MAX_N; n++) count += Math.max(0, Math.min(p, length - n + 1));
  return count;
}

export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

export function loadModel(manifest: ModelManifest, bytes: Uint8Array): NgramModel {
  if (bytes.length !== manifest.buckets || manifest.buckets !== BUCKETS) {
    throw new Error(
      `guardrail model: weights.bin has ${bytes.length} bytes, the manifest says ${manifest.buckets} (expected ${BUCKETS})`,
    );
  }
  const quantised = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const weights = new Float32Array(BUCKETS);
  for (let i = 0; i < BUCKETS; i++) weights[i] = quantised[i]! * manifest.scale;
  return { manifest, weights, quantised: new Int8Array(quantised) };
}

/** Quantises float weights to int8 with one scale (max |w| → 127). */
export function quantise(weights: Float32Array): { bytes: Uint8Array; scale: number } {
  let max = 0;
  for (const w of weights) max = Math.max(max, Math.abs(w));
  const scale = max === 0 ? 1 : max / 127;
  const q = new Int8Array(weights.length);
  for (let i = 0; i < weights.length; i++) q[i] = Math.round(weights[i]! / scale);
  return { bytes: new Uint8Array(q.buffer), scale };
}
