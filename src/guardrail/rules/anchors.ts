/**
 * The one pass over a normalised text that tells the matcher where to look. Running a hundred
 * regular expressions over 32 KB costs milliseconds, so a rule runs only near its anchor: the
 * anchor's words are reduced to stems (their first five letters), and this pass looks every
 * word's prefix up in a table of stems, recording where each rule's anchor (and its second
 * required part, `also`) occurs. The same pass finds the requests to decode (ROT13, reversed;
 * decode_asks.ts) and notes whether the text holds a run of 24 or more base64/hex characters,
 * so the decoder and its patterns run only on texts that have one. Benign text mostly has
 * none of these, and then costs this one pass.
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

export interface Anchors {
  /** slot → ascending positions of its stems (at most MAX_POSITIONS), undefined if none. */
  at: Array<number[] | undefined>;
  /** Slots that have positions, in no particular order. */
  found: number[];
  /** The text may hold a base64/hex run of MIN_ENCODED_RUN or more characters. */
  encodedRun: boolean;
}

interface AnchorIndex {
  /** stem key → slots whose anchor holds that stem */
  stems: Map<number, number[]>;
  /** A one-byte-per-slot presence filter over the low 16 bits of the stem keys. */
  present: Uint8Array;
  marks: Array<{ mark: string; slots: number[] }>;
  /** Slots no stem can anchor: tried at the start of every text. */
  always: number[];
  /** `also` slots no stem can anchor (their rules run on the anchor alone). */
  unanchoredAlso: Set<number>;
}

/** Per ASCII code: 1 a word character ([a-z0-9]), 2 base64 alphabet, 4 a hex digit. */
const CLASS = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyz0123456789") CLASS[ch.charCodeAt(0)]! |= 1;
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=") {
  CLASS[ch.charCodeAt(0)]! |= 2;
}
for (const ch of "0123456789abcdefABCDEF") CLASS[ch.charCodeAt(0)]! |= 4;

export const INDEX = buildIndex(RULES);

/** Whether slot `also` has no stem of its own (its rule then runs on the anchor alone). */
export function isUnanchoredAlso(slot: number): boolean {
  return INDEX.unanchoredAlso.has(slot);
}

/** The anchors of `text` (normalised). */
export function findAnchors(text: string): Anchors {
  const anchors: Anchors = {
    at: new Array(ASK_SLOT + DECODE_ASKS.length),
    found: [],
    encodedRun: false,
  };
  for (const slot of INDEX.always) note(anchors, slot, 0);
  const { present, stems } = INDEX;
  const length = text.length;
  let hash = 0;
  let wordLength = 0;
  let wordStart = 0;
  let shortHash = 0;
  let runStart = -1;
  let hexOnly = true;
  let encodedRun = false;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? text.charCodeAt(i) : 32;
    const cls = c < 128 ? CLASS[c]! : 0;
    if (!encodedRun) {
      // A run of base64 characters, or of hex pairs separated by single spaces or colons.
      if ((cls & 2) !== 0) {
        if (runStart === -1) {
          runStart = i;
          hexOnly = true;
        }
        if ((cls & 4) === 0) hexOnly = false;
      } else if (runStart !== -1) {
        const next = i + 1 < length ? text.charCodeAt(i + 1) : 0;
        if (!(hexOnly && (c === 32 || c === 58) && next < 128 && (CLASS[next]! & 4) !== 0)) {
          if (i - runStart >= MIN_ENCODED_RUN) encodedRun = true;
          runStart = -1;
        }
      }
    }
    if ((cls & 1) !== 0) {
      if (wordLength === 0) wordStart = i;
      wordLength++;
      if (wordLength <= STEM) {
        hash = (hash * 31 + c) | 0;
        if (wordLength === 2 || wordLength === 3) shortHash = hash;
        // Stems of four or five letters match as prefixes ("ignor" in "ignoriere").
        if (wordLength >= 4) {
          const key = ((hash & 0x7ffffff) << 3) | wordLength;
          if (present[key & 0xffff] === 1) noteAll(anchors, stems.get(key), wordStart);
        }
      }
    } else if (wordLength !== 0) {
      // Stems of two or three letters match whole words only ("ai", not "aim").
      if (wordLength === 2 || wordLength === 3) {
        const key = ((shortHash & 0x7ffffff) << 3) | wordLength;
        if (present[key & 0xffff] === 1) noteAll(anchors, stems.get(key), wordStart);
      }
      hash = 0;
      wordLength = 0;
    }
  }
  anchors.encodedRun = encodedRun;
  let marked = false;
  for (const { mark, slots } of INDEX.marks) {
    let at = text.indexOf(mark);
    for (let n = 0; at !== -1 && n < MAX_POSITIONS; n++) {
      marked = true;
      for (const slot of slots) note(anchors, slot, at);
      at = text.indexOf(mark, at + mark.length);
    }
  }
  if (marked) { for (const slot of anchors.found) anchors.at[slot]!.sort((a, b) => a - b); }
  return anchors;
}

function noteAll(anchors: Anchors, slots: number[] | undefined, position: number): void {
  if (slots === undefined) return;
  for (let k = 0; k < slots.length; k++) note(anchors, slots[k]!, position);
}

function note(anchors: Anchors, slot: number, position: number): void {
  const list = anchors.at[slot];
  if (list === undefined) {
    anchors.at[slot] = [position];
    anchors.found.push(slot);
  } else if (list.length < MAX_POSITIONS && list[list.length - 1] !== position) {
    list.push(position);
  }
}

/**
 * Where decode request k first matches (the pattern tested near each of its words), or -1.
 */
export function askPosition(anchors: Anchors, text: string, k: number): number {
  const at = anchors.at[ASK_SLOT + k];
  if (at === undefined) return -1;
  const pattern = DECODE_ASKS[k]!.pattern;
  if (at.length >= MAX_POSITIONS) {
    const start = Math.max(0, at[0]! - 16);
    const match = pattern.exec(text.slice(start));
    return match === null ? -1 : start + match.index;
  }
  for (const position of at) {
    const start = Math.max(0, position - 16);
    const match = pattern.exec(text.slice(start, position + 40));
    if (match !== null) return start + match.index;
  }
  return -1;
}

function stemKey(word: string): number {
  let hash = 0;
  const stem = word.slice(0, STEM);
  for (let i = 0; i < stem.length; i++) hash = (hash * 31 + stem.charCodeAt(i)) | 0;
  return ((hash & 0x7ffffff) << 3) | stem.length;
}

/**
 * Stems such that every match of `source` holds a word starting with one of them: for each
 * top-level alternative, its longest literal word outside groups (a match needs all of them,
 * so the rarest one will do), or else the stems of its first mandatory group.
 */
export function anchorStems(source: string): string[] | null {
  return stemsOf(source, false) ?? stemsOf(source, true);
}

function stemsOf(source: string, allowStop: boolean): string[] | null {
  const stems: string[] = [];
  for (const alternative of splitAlternatives(unwrap(source))) {
    const plain = alternative.replace(/\\/g, "");
    if (MARKS.some((mark) => plain.includes(mark))) continue;
    const { top, groups } = topLevel(alternative);
    const words = top
      .replace(/\\[bwsdWSDn]/g, " ")
      .replace(/\{\d+(?:,\d*)?\}/g, " ")
      .replace(/[-'](?:\?)/g, "")
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= (allowStop ? 2 : 3) && (allowStop || !STOP.has(w)));
    if (words.length > 0) {
      stems.push(words.reduce((a, b) => (b.length > a.length ? b : a)));
      continue;
    }
    const inner = groups.map((g) => stemsOf(g, allowStop)).find((g) => g !== null && g.length > 0);
    if (inner === undefined || inner === null) return null;
    stems.push(...inner);
  }
  return stems;
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

/** The text outside groups (classes blanked), and the mandatory groups (not `?`/`{0,`). */
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
      const optional = source[j + 1] === "?" || source.startsWith("{0,", j + 1);
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
  const unanchoredAlso = new Set<number>();
  const add = (word: string, slot: number) => {
    const key = stemKey(word);
    const list = stems.get(key);
    if (list === undefined) stems.set(key, [slot]);
    else if (!list.includes(slot)) list.push(slot);
  };
  rules.forEach((rule, ruleIndex) => {
    const slot = 2 * ruleIndex;
    if (rule.also !== undefined) {
      const also = anchorStems(rule.also);
      if (also === null) unanchoredAlso.add(slot + 1);
      for (const word of new Set(also ?? [])) add(word, slot + 1);
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
  return { stems, present, marks, always, unanchoredAlso };
}
