/**
 * All rules, and the matcher. Running a hundred regular expressions over 32 KB costs
 * milliseconds, so a rule runs only near its anchor: the anchor's words are reduced to stems
 * (their first five letters), one pass over the text looks every word's prefix up in a table
 * of stems, and each rule is tested only in windows around its own stems' positions. Benign
 * text mostly has none, and then costs that one pass.
 */
import type { Rule, RuleAction } from "./rule.ts";
import { languageRules } from "./language_rules.ts";
import { structuralRules } from "./structural_rules.ts";

export type { Rule, RuleAction } from "./rule.ts";

export const RULES: readonly Rule[] = [...languageRules(), ...structuralRules()];

const BEFORE = 160;
const AFTER = 220;
const MAX_POSITIONS = 32;
const MAX_WINDOWS = 8;
/** How near (characters) the `also` part must be to the anchor. */
const NEAR = 200;
const STEM = 5;

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

export interface RuleHit {
  rule: Rule;
  action: RuleAction;
}

interface AnchorIndex {
  /** stem hash → indices of rules whose anchor holds that stem */
  stems: Map<number, number[]>;
  /** A one-byte-per-slot presence filter over the low 16 bits of the stem keys. */
  present: Uint8Array;
  marks: Array<{ mark: string; rules: number[] }>;
  /** Slots no stem can anchor: tried at the start of every text. */
  always: number[];
  /** `also` slots no stem can anchor (their rules run on the anchor alone). */
  unanchoredAlso: Set<number>;
}

const INDEX = buildIndex(RULES);

/** The rules that match `text` (normalised), strongest action first. */
export function matchRules(text: string, channel: "user" | "tool"): RuleHit[] {
  const positions = candidatePositions(text);
  if (positions.size === 0) return [];
  const hits: RuleHit[] = [];
  for (const [slot, at] of positions) {
    if (slot % 2 === 1) continue;
    const rule = RULES[slot / 2]!;
    const also = rule.also === undefined || INDEX.unanchoredAlso.has(slot + 1)
      ? undefined
      : positions.get(slot + 1) ?? [];
    if (also !== undefined && also.length === 0) continue;
    // Lists that overflowed (more positions than recorded) cannot rule a position out.
    const overflow = at.length >= MAX_POSITIONS;
    const near = also === undefined || overflow || also.length >= MAX_POSITIONS
      ? at
      : at.filter((p) => also.some((q) => Math.abs(q - p) <= NEAR));
    if (near.length === 0) continue;
    if (matchesNear(rule, text, near, overflow)) {
      hits.push({ rule, action: channel === "tool" ? rule.tool : rule.user });
    }
  }
  hits.sort((a, b) => (a.action === b.action ? 0 : a.action === "block" ? -1 : 1));
  return hits;
}

/**
 * Tests the rule in a window around each position; with many positions (or more than were
 * recorded) one pass over their whole span instead, so decoy anchor words placed before an
 * attack cannot use up the windows and hide it.
 */
function matchesNear(rule: Rule, text: string, at: number[], overflow: boolean): boolean {
  if (overflow || at.length > MAX_WINDOWS) {
    const start = Math.max(0, at[0]! - BEFORE);
    const end = overflow ? text.length : Math.min(text.length, at[at.length - 1]! + AFTER);
    return rule.pattern.test(text.slice(start, end));
  }
  let windowEnd = -1;
  for (const position of at) {
    if (position + AFTER <= windowEnd + 120) continue;
    const start = Math.max(0, position - BEFORE);
    windowEnd = Math.min(text.length, position + AFTER);
    if (rule.pattern.test(text.slice(start, windowEnd))) return true;
  }
  return false;
}

function lookUp(key: number, position: number, note: (slots: number[], at: number) => void) {
  if (INDEX.present[key & 0xffff] === 1) {
    const slots = INDEX.stems.get(key);
    if (slots !== undefined) note(slots, position);
  }
}

/** rule index → positions of its anchor stems in `text` (ascending, at most 16). */
export function candidatePositions(text: string): Map<number, number[]> {
  const found = new Map<number, number[]>();
  const note = (rules: number[], position: number) => {
    for (const r of rules) {
      const list = found.get(r);
      if (list === undefined) found.set(r, [position]);
      else if (list.length < MAX_POSITIONS && list[list.length - 1] !== position) {
        list.push(position);
      }
    }
  };
  note(INDEX.always, 0);
  let hash = 0;
  let length = 0;
  let wordStart = 0;
  let shortHash = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (length === 0) wordStart = i;
      length++;
      if (length <= STEM) {
        hash = (hash * 31 + c) | 0;
        if (length === 2 || length === 3) shortHash = hash;
        // Stems of four or five letters match as prefixes ("ignor" in "ignoriere").
        if (length >= 4) lookUp(((hash & 0x7ffffff) << 3) | length, wordStart, note);
      }
    } else {
      // Stems of two or three letters match whole words only ("ai", not "aim").
      if (length === 2 || length === 3) {
        lookUp(((shortHash & 0x7ffffff) << 3) | length, wordStart, note);
      }
      hash = 0;
      length = 0;
    }
  }
  for (const { mark, rules } of INDEX.marks) {
    let at = text.indexOf(mark);
    for (let n = 0; at !== -1 && n < MAX_POSITIONS; n++) {
      note(rules, at);
      at = text.indexOf(mark, at + mark.length);
    }
  }
  for (const list of found.values()) list.sort((a, b) => a - b);
  return found;
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
  const marks = MARKS.map((mark) => ({ mark, rules: [] as number[] }));
  const always: number[] = [];
  const unanchoredAlso = new Set<number>();
  const add = (word: string, slot: number) => {
    const key = stemKey(word);
    const list = stems.get(key);
    if (list === undefined) stems.set(key, [slot]);
    else if (!list.includes(slot)) list.push(slot);
  };
  rules.forEach((rule, ruleIndex) => {
    const index = 2 * ruleIndex;
    if (rule.also !== undefined) {
      const also = anchorStems(rule.also);
      if (also === null) unanchoredAlso.add(index + 1);
      for (const word of new Set(also ?? [])) add(word, index + 1);
    }
    const anchored = anchorStems(rule.anchor);
    const isMark = marks.some((m) => rule.anchor.replace(/\\/g, "").includes(m.mark));
    if (anchored === null && !isMark) always.push(index);
    for (const word of new Set(anchored ?? [])) {
      const key = stemKey(word);
      const list = stems.get(key);
      if (list === undefined) stems.set(key, [index]);
      else if (!list.includes(index)) list.push(index);
    }
    for (const m of marks) {
      if (rule.anchor.replace(/\\/g, "").replace(/\(\?:/g, "").includes(m.mark)) {
        m.rules.push(index);
      }
    }
  });
  const present = new Uint8Array(0x10000);
  for (const key of stems.keys()) present[key & 0xffff] = 1;
  return { stems, present, marks, always, unanchoredAlso };
}
