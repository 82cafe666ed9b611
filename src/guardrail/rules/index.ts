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
  for (const slot of anchors.found) {
    if (slot % 2 === 1 || slot >= 2 * RULES.length) continue;
    const index = slot / 2;
    const rule = RULES[index]!;
    const at = anchors.at[slot]!;
    const reach = REACH[index]!;
    const also = hasAlso(slot + 1) ? anchors.at[slot + 1] : undefined;
    if (hasAlso(slot + 1) && also === undefined) continue;
    // Lists that overflowed (more positions than recorded) cannot rule a position out.
    const overflow = at.length >= MAX_POSITIONS;
    const near = also === undefined || overflow || also.length >= MAX_POSITIONS
      ? at
      : at.filter((p) => also.some((q) => Math.abs(q - p) <= reach));
    if (near.length === 0) continue;
    if (matchesNear(rule.pattern, text, near, reach, overflow)) {
      hits.push({ rule, action: channel === "tool" ? rule.tool : rule.user });
    }
  }
  hits.sort((a, b) => (a.action === b.action ? 0 : a.action === "block" ? -1 : 1));
  return hits;
}

/**
 * Tests `pattern` once on each stretch of the union of the windows p ± reach (one more
 * character each side, for `\b`); past an overflowed list, up to the end of the text, so decoy
 * anchor words placed before an attack cannot hide it.
 */
function matchesNear(
  pattern: RegExp,
  text: string,
  at: number[],
  reach: number,
  overflow: boolean,
): boolean {
  let start = Math.max(0, at[0]! - reach - 1);
  let end = Math.min(text.length, at[0]! + reach + 1);
  for (let k = 1; k < at.length; k++) {
    const from = at[k]! - reach - 1;
    if (from > end) {
      if (pattern.test(text.slice(start, end))) return true;
      start = from;
    }
    end = Math.min(text.length, at[k]! + reach + 1);
  }
  if (overflow) end = text.length;
  return pattern.test(text.slice(start, end));
}
