/**
 * What everything after normalisation needs from a normalised text, in two loops:
 *
 * - charPass, over every character: the n-gram model's per-block weight sums (ngram_model.ts:
 *   the FNV-1a hashes of the 3-, 4- and 5-grams at every position, the last five characters
 *   kept in variables), the word starts (collected without a branch) and where a base64 run
 *   reaches 24 characters;
 * - wordPass, over the word starts only: the anchors of the rules and of the decode requests
 *   (rules/anchors.ts: the FNV-1a hashes of the word's first two to five letters looked up in
 *   the stem table) and the runs of spaced hex pairs.
 *
 * Separate passes rather than one loop doing all of it per character: the same results (a
 * differential run over 28,000 texts compared sums, anchors and run positions) in ≈ 20 % less
 * time, mostly from fewer mispredicted branches at word boundaries.
 */
import {
  Anchors,
  FNV_BASIS,
  FNV_PRIME,
  INDEX,
  keyOf,
  MIN_ENCODED_RUN,
  note,
  noteMarks,
  TABLE_MASK,
} from "./rules/anchors.ts";
import { BUCKET_BITS, STRIDE } from "./ngram_model.ts";

export interface TextPass {
  anchors: Anchors;
  /** Summed int8 weights of the n-grams starting in each STRIDE block (with model weights). */
  blocks: Int32Array;
}

/**
 * Per UTF-16 code (a table over all of them, so the loops need no range test; only the ASCII
 * entries are set): 1 a word character ([a-z0-9]), 2 base64 alphabet, 4 a hex digit; 8, 16,
 * 32 the first character of a structural mark ("<", "!", "@"; noteMarks looks for the marks
 * only when one of them occurs).
 */
const CLASS = new Uint8Array(0x10000);
for (const ch of "abcdefghijklmnopqrstuvwxyz0123456789") CLASS[ch.charCodeAt(0)]! |= 1;
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=") {
  CLASS[ch.charCodeAt(0)]! |= 2;
}
for (const ch of "0123456789abcdefABCDEF") CLASS[ch.charCodeAt(0)]! |= 4;
CLASS[60]! |= 8; // <
CLASS[33]! |= 16; // !
CLASS[64]! |= 32; // @

const EMPTY = new Int32Array(0);
/** All-zero weights: the anchors-only pass runs the same loop. */
let zeroWeights: Int8Array | undefined;
const SHIFT = 32 - BUCKET_BITS;
const GOLDEN = 0x9e3779b1 | 0;
const BLOCK_SHIFT = Math.log2(STRIDE);
if (!Number.isInteger(BLOCK_SHIFT)) throw new Error("text pass: STRIDE must be a power of two");
/** Word starts of the text being passed (scratch, grown on demand; the scan is synchronous). */
let starts = new Int32Array(4096);
/** The CLASS bits of all the text's characters, or-ed (charPass sets it). */
let leads = 0;

/**
 * `weights`: the model's int8 weights, or null when only the anchors are wanted; `anchors`:
 * where to record them (reset first; a caller scanning text after text passes the same one).
 */
export function textPass(
  text: string,
  weights: Int8Array | null,
  anchors: Anchors = new Anchors(),
): TextPass {
  anchors.reset();
  const length = text.length;
  let blocks = EMPTY;
  let sums = blocks;
  if (weights !== null) {
    blocks = new Int32Array(Math.ceil(length / STRIDE) + 1);
    sums = blocks;
  } else {
    zeroWeights ??= new Int8Array(1 << BUCKET_BITS);
    sums = new Int32Array(Math.ceil(length / STRIDE) + 1);
  }
  if (starts.length < length + 1) starts = new Int32Array(length + 1024);
  const words = charPass(text, weights ?? zeroWeights!, sums, anchors);
  wordPass(text, words, anchors);
  noteMarks(anchors, text, leads >> 3);
  return { anchors, blocks };
}

/**
 * The loop over every character: adds to `blocks[b]` the weights of the 3-, 4- and 5-grams
 * starting in block b (the same hashes and buckets as ngram_model.ts's forEachNgram and
 * blockSums; a test holds them equal), collects the word starts (a word character not
 * preceded by one) into `starts` without a branch, and notes where base64 runs reach
 * MIN_ENCODED_RUN characters; or-s every character's CLASS bits into `leads`. Returns how many
 * word starts it collected.
 */
function charPass(text: string, weights: Int8Array, blocks: Int32Array, anchors: Anchors): number {
  const length = text.length;
  // Locals, not imported bindings (a module import is read through its cell on every use).
  const basis = FNV_BASIS | 0;
  const prime = FNV_PRIME;
  const golden = GOLDEN;
  const shift = SHIFT;
  const classOf = CLASS;
  const at = starts;
  const minRun = MIN_ENCODED_RUN;
  let n = 0;
  let word = 0;
  let base64 = 0;
  let firstRun = -1;
  let lastRun = -1;
  let seen = 0;
  // The first four characters (or fewer): classified here, hashed below.
  const head = Math.min(4, length);
  for (let p = 0; p < head; p++) {
    const k = classOf[text.charCodeAt(p)]!;
    seen |= k;
    at[n] = p;
    n += k & 1 & (word ^ 1);
    word = k & 1;
    base64 = (base64 + 1) & -((k >> 1) & 1);
  }
  // Positions s < full have all five characters s .. s+4; c1..c4 are s .. s+3.
  const full = length - 4;
  let c1 = 0, c2 = 0, c3 = 0, c4 = 0;
  if (full > 0) {
    c1 = text.charCodeAt(0);
    c2 = text.charCodeAt(1);
    c3 = text.charCodeAt(2);
    c4 = text.charCodeAt(3);
  }
  let s = 0;
  for (let block = 0; s < full; block++) {
    const end = Math.min(full, (block + 1) * STRIDE);
    let sum = 0;
    for (; s < end; s++) {
      const c5 = text.charCodeAt(s + 4);
      let h = Math.imul(basis ^ c1, prime);
      h = Math.imul(h ^ c2, prime);
      h = Math.imul(h ^ c3, prime);
      sum += weights[Math.imul(h, golden) >>> shift]!;
      h = Math.imul(h ^ c4, prime);
      sum += weights[Math.imul(h, golden) >>> shift]!;
      h = Math.imul(h ^ c5, prime);
      sum += weights[Math.imul(h, golden) >>> shift]!;
      // The character at s + 4: a word start? the end of a long enough base64 run?
      const k = classOf[c5]!;
      seen |= k;
      at[n] = s + 4;
      n += k & 1 & (word ^ 1);
      word = k & 1;
      base64 = (base64 + 1) & -((k >> 1) & 1);
      if (base64 === minRun) {
        if (firstRun === -1) firstRun = s + 4;
        lastRun = s + 4;
      }
      c1 = c2;
      c2 = c3;
      c3 = c4;
      c4 = c5;
    }
    blocks[block] = sum;
  }
  // The last positions, with fewer than five characters left (a 3-gram and maybe a 4-gram).
  for (s = Math.max(0, full); s + 2 < length; s++) {
    let h = Math.imul(basis ^ text.charCodeAt(s), prime);
    h = Math.imul(h ^ text.charCodeAt(s + 1), prime);
    h = Math.imul(h ^ text.charCodeAt(s + 2), prime);
    let sum = weights[Math.imul(h, golden) >>> shift]!;
    if (s + 3 < length) {
      h = Math.imul(h ^ text.charCodeAt(s + 3), prime);
      sum += weights[Math.imul(h, golden) >>> shift]!;
    }
    blocks[s >>> BLOCK_SHIFT]! += sum;
  }
  anchors.encodedRunAt = firstRun;
  anchors.lastRunAt = lastRun;
  leads = seen;
  return n;
}

/**
 * At each of the first `count` word starts of `starts` that begins a word of two or more
 * letters, the stem keys of its first two, three, four and five letters are looked up in the
 * stem table; two-letter words also count spaced hex pairs, a run candidate.
 *
 * Run candidates are merged with charPass's base64 ones in the order the single loop this
 * replaced noted them (decode.ts only needs a position on the first and on the last run's
 * line; the order keeps the recorded positions identical): a base64 run reaching
 * MIN_ENCODED_RUN characters at i counts at "time" i; the start s of a two-letter word that
 * completes enough spaced hex pairs counts at time s + 4, after a base64 run of the same time.
 */
function wordPass(text: string, count: number, anchors: Anchors): void {
  const length = text.length;
  const { keys, slotsAt } = INDEX;
  const mask = TABLE_MASK;
  const classOf = CLASS;
  const basis = FNV_BASIS | 0;
  const prime = FNV_PRIME;
  const minRun = MIN_ENCODED_RUN;
  const at = starts;
  let hexPairs = 0;
  let firstHex = -1;
  let lastHex = -1;
  for (let w = 0; w < count; w++) {
    const i = at[w]!;
    const c = text.charCodeAt(i);
    const c1 = i + 1 < length ? text.charCodeAt(i + 1) : 32;
    if ((classOf[c1]! & 1) === 0) continue;
    const c2 = i + 2 < length ? text.charCodeAt(i + 2) : 32;
    let h = Math.imul(Math.imul(basis ^ c, prime) ^ c1, prime);
    let key: number;
    if ((classOf[c2]! & 1) === 0) {
      key = keyOf(h, 2);
      hexPairs = (classOf[c]! & classOf[c1]! & 4) !== 0 && (c2 === 32 || c2 === 58)
        ? hexPairs + 1
        : 0;
      if (3 * hexPairs >= minRun) {
        if (firstHex === -1) firstHex = i;
        lastHex = i;
      }
    } else {
      hexPairs = 0;
      h = Math.imul(h ^ c2, prime);
      const c3 = i + 3 < length ? text.charCodeAt(i + 3) : 32;
      if ((classOf[c3]! & 1) === 0) {
        key = keyOf(h, 3);
      } else {
        h = Math.imul(h ^ c3, prime);
        key = keyOf(h, 4);
        for (let t = (key >>> 3) & mask, k = keys[t]!; k !== 0; t = (t + 1) & mask, k = keys[t]!) {
          if (k === key) noteAll(anchors, slotsAt[t]!, i);
        }
        const c4 = i + 4 < length ? text.charCodeAt(i + 4) : 32;
        key = (classOf[c4]! & 1) === 0 ? -1 : keyOf(Math.imul(h ^ c4, prime), 5);
      }
    }
    if (key !== -1) {
      for (let t = (key >>> 3) & mask, k = keys[t]!; k !== 0; t = (t + 1) & mask, k = keys[t]!) {
        if (k === key) noteAll(anchors, slotsAt[t]!, i);
      }
    }
  }
  if (firstHex === -1) return;
  // Base64 candidate at time i, hex candidate at s at time s + 4 (base64 first on a tie).
  const first = anchors.encodedRunAt;
  if (first === -1 || firstHex + 4 < first) anchors.encodedRunAt = firstHex;
  const last = anchors.lastRunAt;
  if (last === -1 || lastHex + 4 >= last) anchors.lastRunAt = lastHex;
}

function noteAll(anchors: Anchors, slots: number[], position: number): void {
  for (let k = 0; k < slots.length; k++) note(anchors, slots[k]!, position);
}
