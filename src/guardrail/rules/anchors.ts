/**
 * The anchor index: where the matcher should look. Running a hundred regular expressions over
 * 32 KB costs milliseconds, so a rule runs only near its anchor: the anchor's words are reduced
 * to stems (their first five letters) and put in a table keyed by the stem's hash; the text
 * pass (../text_pass.ts) looks every word's prefix up in it and records, per slot, where it
 * occurs. The same table holds the words of the requests to decode (ROT13, reversed;
 * decode_asks.ts), so their patterns run only near those words.
 *
 * Slots: `2·r` is rule r's anchor, `2·r + 1` its `also` part, `2·R + k` decode request k.
 */
import type { Rule } from "./rule.ts";
import { RULES } from "./rule_set.ts";
import { DECODE_ASKS } from "../decode_asks.ts";

/** Positions recorded per slot; a full list means there may be more (an overflow). */
export const MAX_POSITIONS = 32;
const STEM = 5;
/** Base64/hex runs shorter than this are not decoded (decode.ts). */
export const MIN_ENCODED_RUN = 24;
export const ASK_SLOT = 2 * RULES.length;
export const SLOTS = ASK_SLOT + DECODE_ASKS.length;
export const FNV_BASIS = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;
/** The stem table's size less one (a power of two, several times the number of stems). */
export const TABLE_MASK = 8191;

/** Marks (not words) that anchor structural rules. */
const MARKS = [
  "<|",
  "<!--",
  "![",
  "@",
  "<system>",
  "</system>",
  "<instruction",
  "</instruction",
  "<admin>",
  "</admin>",
  "<important_instructions>",
  "<information>",
  "</information>",
] as const;

/** Filler words of anchors that cannot make a window worth looking at on their own. */
const STOP = new Set(
  ("the to for of in on a an all any you your is are be me my it this that and or not no if " +
    "user from will end before with can " +
    "de la le les des du un une et ou tu te ton ta tes vous votre vos est ce qu que qui a " +
    "der die das den dem des ein eine und oder du dir dich sie ist sind was wie an fur " +
    "el los las lo y o te tu tus su sus es son que para al del " +
    "il lo gli i e di da per con tua tuo tue sei " +
    "het een en je jij u uw is zijn wat van voor aan op " +
    "w z na do dla i o co to jest sa ze sie").split(" "),
);

/**
 * Where the text pass found each slot's stems: per slot at most MAX_POSITIONS ascending
 * positions, in one flat typed array (no array per slot), so a pass allocates nothing for
 * them and one object serves pass after pass (`reset`, done by the text pass, clears only the
 * slots the previous text filled).
 */
export class Anchors {
  /** slot → how many positions are recorded (a full list means there may be more). */
  readonly count = new Uint8Array(SLOTS);
  /** Slot s's positions are `positions[s * MAX_POSITIONS + k]`, k < count[s], ascending. */
  readonly positions = new Int32Array(SLOTS * MAX_POSITIONS);
  /**
   * Slots that have positions, in the order they were first found: `found[k]`, k < foundCount
   * (a typed array with a count: an array emptied by `length = 0` drops its storage, and
   * regrowing it was a sizeable part of what a scan allocated).
   */
  readonly found = new Int32Array(SLOTS);
  foundCount = 0;
  /**
   * -1 when the text holds no base64/hex run of MIN_ENCODED_RUN or more characters; else a
   * position at or after the start of the first one, on its line (runs never span lines).
   */
  encodedRunAt = -1;
  /** Like encodedRunAt, for the last run (-1 when there is none): no run lies past its line. */
  lastRunAt = -1;

  reset(): void {
    for (let k = 0; k < this.foundCount; k++) this.count[this.found[k]!] = 0;
    this.foundCount = 0;
    this.encodedRunAt = -1;
    this.lastRunAt = -1;
  }

  /** The slots found, in order (a copy; for tests and tools). */
  slots(): number[] {
    return Array.from(this.found.subarray(0, this.foundCount));
  }

  /** Slot's first recorded position (count[slot] > 0). */
  first(slot: number): number {
    return this.positions[slot * MAX_POSITIONS]!;
  }
}

export interface AnchorIndex {
  /** stem key → slots whose anchor holds that stem */
  stems: Map<number, number[]>;
  /**
   * The same, as an open-addressing table the text pass probes without a Map: `keys[i]` a stem
   * key (0 empty), `slotsAt[i]` its slots; a key starts at `(key >>> 3) & TABLE_MASK`.
   */
  keys: Int32Array;
  slotsAt: number[][];
  /** A one-byte-per-slot presence filter over the low 16 bits of the stem keys. */
  present: Uint8Array;
  marks: Array<{ mark: string; slots: number[] }>;
  /** Slots no stem can anchor: tried at the start of every text. */
  always: number[];
  /**
   * `also` slots that have stems: the rule's own `also` part, or else, found in its pattern,
   * the last required group of every alternative (a match holds a word of it too). A rule
   * whose slot is not here runs on its anchor alone.
   */
  anchoredAlso: Set<number>;
}

export const INDEX = buildIndex(RULES);

/** Whether `also` slot has stems (else its rule runs on the anchor alone). */
export function hasAlso(slot: number): boolean {
  return INDEX.anchoredAlso.has(slot);
}

/** Records `position` for `slot` (ascending; at most MAX_POSITIONS). */
export function note(anchors: Anchors, slot: number, position: number): void {
  const { count, positions } = anchors;
  const n = count[slot]!;
  if (n === 0) {
    positions[slot * MAX_POSITIONS] = position;
    count[slot] = 1;
    anchors.found[anchors.foundCount++] = slot;
  } else if (n < MAX_POSITIONS && positions[slot * MAX_POSITIONS + n - 1] !== position) {
    positions[slot * MAX_POSITIONS + n] = position;
    count[slot] = n + 1;
  }
}

/**
 * Adds the positions of the structural marks ("<|", "<!--"…), and those of `INDEX.always`.
 * `leads`: which of the marks' first characters the text holds (1 "<", 2 "!", 4 "@"), when the
 * caller knows (the text pass does); else looked up here.
 */
export function noteMarks(anchors: Anchors, text: string, leads = -1): void {
  let marked = false;
  // Every mark starts with one of three characters: one look for each rules most marks out.
  const lt = leads === -1 ? text.includes("<") : (leads & 1) !== 0;
  const bang = leads === -1 ? text.includes("!") : (leads & 2) !== 0;
  const at0 = leads === -1 ? text.includes("@") : (leads & 4) !== 0;
  for (const { mark, slots } of INDEX.marks) {
    const lead = mark.charCodeAt(0);
    if (lead === 60 ? !lt : lead === 33 ? !bang : lead === 64 ? !at0 : false) continue;
    let at = text.indexOf(mark);
    for (let n = 0; at !== -1 && n < MAX_POSITIONS; n++) {
      marked = true;
      for (const slot of slots) note(anchors, slot, at);
      at = text.indexOf(mark, at + mark.length);
    }
  }
  for (const slot of INDEX.always) {
    marked = true;
    note(anchors, slot, 0);
  }
  if (!marked) return;
  // Marks come after the stems: put every list back in ascending order (insertion sort, ≤ 32).
  const { count, positions, found } = anchors;
  for (let k = 0; k < anchors.foundCount; k++) {
    const base = found[k]! * MAX_POSITIONS;
    const end = base + count[found[k]!]!;
    for (let i = base + 1; i < end; i++) {
      const value = positions[i]!;
      let j = i - 1;
      for (; j >= base && positions[j]! > value; j--) positions[j + 1] = positions[j]!;
      positions[j + 1] = value;
    }
  }
}

/**
 * Where decode request k first matches (the pattern tested near each of its words), or -1.
 */
export function askPosition(anchors: Anchors, text: string, k: number): number {
  const slot = ASK_SLOT + k;
  const n = anchors.count[slot]!;
  if (n === 0) return -1;
  const pattern = DECODE_ASKS[k]!.pattern;
  if (n >= MAX_POSITIONS) {
    const start = Math.max(0, anchors.first(slot) - 16);
    const match = pattern.exec(text.slice(start));
    return match === null ? -1 : start + match.index;
  }
  for (let i = 0; i < n; i++) {
    const position = anchors.positions[slot * MAX_POSITIONS + i]!;
    const start = Math.max(0, position - 16);
    const match = pattern.exec(text.slice(start, position + 40));
    if (match !== null) return start + match.index;
  }
  return -1;
}

/**
 * A stem's key: the FNV-1a hash of its (at most five) letters, the same hash the n-gram model
 * computes at every position (text_pass.ts reuses it), with the length in the low three bits.
 */
export function stemKey(word: string): number {
  const stem = word.slice(0, STEM);
  let hash = FNV_BASIS;
  for (let i = 0; i < stem.length; i++) hash = Math.imul(hash ^ stem.charCodeAt(i), FNV_PRIME);
  return keyOf(hash, stem.length);
}

/** The index key of a stem of `length` letters whose FNV-1a hash is `hash`. */
export function keyOf(hash: number, length: number): number {
  return (hash & 0x3ffffff8) | length;
}

/**
 * Stems such that every match of `source` holds a word starting with one of them: for each
 * top-level alternative, its longest literal word outside groups (a match needs all of them,
 * so the rarest one will do), or else the stems of its first mandatory group.
 */
export function anchorStems(source: string): string[] | null {
  return stemsOf(source, false) ?? stemsOf(source, true);
}

function stemsOf(source: string, allowStop: boolean, depth = 0): string[] | null {
  // A group that does not unwrap (a quantified one) would be its own only group.
  if (depth > 8) return null;
  const stems: string[] = [];
  for (const alternative of splitAlternatives(unwrap(source))) {
    const plain = alternative.replace(/\\/g, "");
    if (MARKS.some((mark) => plain.includes(mark))) continue;
    const { top, groups } = topLevel(alternative);
    const words = literalWords(top, allowStop);
    if (words.length > 0) {
      stems.push(words.reduce((a, b) => (b.length > a.length ? b : a)));
      continue;
    }
    const inner = groups.map((g) => stemsOf(g, allowStop, depth + 1)).find((g) =>
      g !== null && g.length > 0
    );
    if (inner === undefined || inner === null) return null;
    stems.push(...inner);
  }
  return stems;
}

/**
 * For a rule without an `also` part: per top-level alternative of its pattern, the stems of a
 * second required part (every match holds a word of it as well as its anchor word): its last
 * required group whose stems are not all the anchor's own, or else its longest top-level
 * literal word that is not (a filler word or) one of the anchor's, or else the anchor's own
 * stems (that alternative then runs on its anchor alone). Null when an alternative is anchored
 * by a mark or has no stems at all.
 */
function lastGroupStems(source: string, anchor: readonly string[]): string[] | null {
  const own = new Set(anchor.map(stemOf));
  const isOwn = (stems: readonly string[]) => stems.every((w) => own.has(stemOf(w)));
  const stems: string[] = [];
  for (const alternative of splitAlternatives(unwrap(source))) {
    const plain = alternative.replace(/\\/g, "");
    if (MARKS.some((mark) => plain.includes(mark))) return null;
    const { top, groups } = topLevel(alternative);
    let found: string[] | null = null;
    for (let g = groups.length - 1; g >= 0 && found === null; g--) {
      const inner = anchorStems(groups[g]!);
      if (inner !== null && inner.length > 0 && !isOwn(inner)) found = inner;
    }
    if (found === null) {
      const word = literalWords(top, false).filter((w) => !own.has(stemOf(w)))
        .reduce<string | undefined>(
          (a, b) => (a === undefined || b.length > a.length ? b : a),
          undefined,
        );
      if (word !== undefined) found = [word];
    }
    if (found === null) {
      const self = anchorStems(alternative);
      if (self === null || self.length === 0) return null;
      found = self;
    }
    stems.push(...found);
  }
  return stems;
}

function stemOf(word: string): string {
  return word.slice(0, STEM);
}

/** The literal words of `top` (topLevel's text outside groups), as stemsOf reads them. */
function literalWords(top: string, allowStop: boolean): string[] {
  return top
    .replace(/\\[bwsdWSDn]/g, " ")
    .replace(/\{\d+(?:,\d*)?\}/g, " ")
    .replace(/[-'](?:\?)/g, "")
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= (allowStop ? 2 : 3) && (allowStop || !STOP.has(w)));
}

/** `(?:a|b)` → `a|b` when the group spans the whole source. */
function unwrap(source: string): string {
  if (!source.startsWith("(?:") || !source.endsWith(")")) return source;
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "(") depth++;
    else if (source[i] === ")" && --depth === 0 && i !== source.length - 1) return source;
  }
  return source.slice(3, -1);
}

function splitAlternatives(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (c === "|" && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(source.slice(start));
  return parts;
}

/**
 * The text outside groups (classes blanked), and the mandatory groups (not `?`/`{0,`, not
 * lookarounds).
 */
function topLevel(source: string): { top: string; groups: string[] } {
  let top = "";
  const groups: string[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      top += source.slice(i, i + 2);
      i++;
    } else if (c === "(" || c === "[") {
      const close = c === "(" ? ")" : "]";
      let depth = 0;
      let j = i;
      for (; j < source.length; j++) {
        if (source[j] === "\\") j++;
        else if (source[j] === c) depth++;
        else if (source[j] === close && --depth === 0) break;
      }
      // Lookarounds match no text: never a required part.
      const lookaround = /^\(\?<?[=!]/.test(source.slice(i, i + 4));
      const optional = lookaround || source[j + 1] === "?" || source.startsWith("{0,", j + 1);
      if (c === "(" && !optional) groups.push(source.slice(i, j + 1));
      // An optional trailing letter ("s?") is dropped with the group marker.
      top += " ";
      i = j;
    } else if (c === "?" && /[a-z]/.test(top[top.length - 1] ?? "")) {
      top = top.slice(0, -1);
    } else {
      top += c;
    }
  }
  return { top, groups };
}

function buildIndex(rules: readonly Rule[]): AnchorIndex {
  const stems = new Map<number, number[]>();
  const marks = MARKS.map((mark) => ({ mark, slots: [] as number[] }));
  const always: number[] = [];
  const anchoredAlso = new Set<number>();
  const add = (word: string, slot: number) => {
    const key = stemKey(word);
    const list = stems.get(key);
    if (list === undefined) stems.set(key, [slot]);
    else if (!list.includes(slot)) list.push(slot);
  };
  rules.forEach((rule, ruleIndex) => {
    const slot = 2 * ruleIndex;
    const also = rule.also !== undefined
      ? anchorStems(rule.also)
      : lastGroupStems(rule.pattern.source, anchorStems(rule.anchor) ?? []);
    if (also !== null && also.length > 0) {
      anchoredAlso.add(slot + 1);
      for (const word of new Set(also)) add(word, slot + 1);
    }
    const anchored = anchorStems(rule.anchor);
    const plain = rule.anchor.replace(/\\/g, "");
    const isMark = marks.some((m) => plain.includes(m.mark));
    if (anchored === null && !isMark) always.push(slot);
    for (const word of new Set(anchored ?? [])) add(word, slot);
    for (const m of marks) {
      if (plain.replace(/\(\?:/g, "").includes(m.mark)) m.slots.push(slot);
    }
  });
  DECODE_ASKS.forEach((ask, k) => {
    for (const word of ask.words) add(word, ASK_SLOT + k);
  });
  const present = new Uint8Array(0x10000);
  for (const key of stems.keys()) present[key & 0xffff] = 1;
  const keys = new Int32Array(TABLE_MASK + 1);
  const slotsAt: number[][] = [];
  for (const [key, slots] of stems) {
    let i = (key >>> 3) & TABLE_MASK;
    while (keys[i] !== 0) i = (i + 1) & TABLE_MASK;
    keys[i] = key;
    slotsAt[i] = slots;
  }
  return { stems, present, keys, slotsAt, marks, always, anchoredAlso };
}
