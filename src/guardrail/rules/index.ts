/**
 * All rules, and the matcher. The text pass (../text_pass.ts) says where each rule's anchor words
 * are; a rule's pattern is then tested only in the windows where a match could lie: a match
 * holds one of its anchor words and is at most as long as the pattern's longest match
 * (extent.ts), so around an anchor word at p it lies within p ± that length. Overlapping
 * windows are merged, each stretch of text is tested once per rule, and a rule with an `also`
 * part runs only at anchor words that have an `also` word within that length.
 */
import type { Rule, RuleAction } from "./rule.ts";
import { RULES } from "./rule_set.ts";
import { type Anchors, hasAlso, MAX_POSITIONS } from "./anchors.ts";
import { textPass } from "../text_pass.ts";
import { maxMatchLength } from "./extent.ts";

export type { Rule, RuleAction } from "./rule.ts";
export { RULES } from "./rule_set.ts";
export { anchorStems } from "./anchors.ts";

/** Window half-width for a rule whose longest match is unbounded (rules promise none). */
const UNBOUNDED_REACH = 400;

/** Per rule: how far from an anchor word a match can reach. */
const REACH: readonly number[] = RULES.map((rule) => {
  const length = maxMatchLength(rule.pattern.source, rule.pattern.flags);
  return Number.isFinite(length) ? length : UNBOUNDED_REACH;
});

export interface RuleHit {
  rule: Rule;
  action: RuleAction;
}

/**
 * The rules that match `text` (normalised), strongest action first; `anchors` is
 * the text pass's anchors when the caller has them already.
 */
export function matchRules(
  text: string,
  channel: "user" | "tool",
  anchors: Anchors = textPass(text, null).anchors,
): RuleHit[] {
  const hits: RuleHit[] = [];
  const { count, positions, found } = anchors;
  for (let f = 0; f < anchors.foundCount; f++) {
    const slot = found[f]!;
    if (slot % 2 === 1 || slot >= 2 * RULES.length) continue;
    const index = slot / 2;
    const rule = RULES[index]!;
    const n = count[slot]!;
    const reach = REACH[index]!;
    const gated = hasAlso(slot + 1);
    const m = gated ? count[slot + 1]! : 0;
    if (gated && m === 0) continue;
    // Lists that overflowed (more positions than recorded) cannot rule a position out.
    const overflow = n >= MAX_POSITIONS;
    const base = slot * MAX_POSITIONS;
    let near = 0;
    if (!gated || overflow || m >= MAX_POSITIONS) {
      for (let k = 0; k < n; k++) NEAR[near++] = positions[base + k]!;
    } else {
      const alsoBase = base + MAX_POSITIONS;
      for (let k = 0; k < n; k++) {
        const p = positions[base + k]!;
        for (let j = 0; j < m; j++) {
          if (Math.abs(positions[alsoBase + j]! - p) <= reach) {
            NEAR[near++] = p;
            break;
          }
        }
      }
    }
    if (near === 0) continue;
    if (matchesNear(rule.pattern, text, near, reach, overflow)) {
      hits.push({ rule, action: channel === "tool" ? rule.tool : rule.user });
    }
  }
  hits.sort((a, b) => (a.action === b.action ? 0 : a.action === "block" ? -1 : 1));
  return hits;
}

/** The positions of the rule being matched that have an `also` word near (scratch). */
const NEAR = new Int32Array(MAX_POSITIONS);

/**
 * Tests `pattern` once on each stretch of the union of the windows p ± reach around the first
 * `count` positions of NEAR (one more character each side, for `\b`); past an overflowed list,
 * up to the end of the text, so decoy anchor words placed before an attack cannot hide it.
 */
function matchesNear(
  pattern: RegExp,
  text: string,
  count: number,
  reach: number,
  overflow: boolean,
): boolean {
  let start = Math.max(0, NEAR[0]! - reach - 1);
  let end = Math.min(text.length, NEAR[0]! + reach + 1);
  for (let k = 1; k < count; k++) {
    const from = NEAR[k]! - reach - 1;
    if (from > end) {
      if (pattern.test(text.slice(start, end))) return true;
      start = from;
    }
    end = Math.min(text.length, NEAR[k]! + reach + 1);
  }
  if (overflow) end = text.length;
  return pattern.test(text.slice(start, end));
}
