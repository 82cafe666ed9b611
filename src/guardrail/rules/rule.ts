/**
 * A guardrail rule: a regular expression over normalised text (lower-case, no diacritics, see
 * normalize.ts) with a stable id, a family, a language and what it does per channel.
 *
 * Rules are data: ids never change meaning (an organization may report or discuss one), a
 * retired rule's id is not reused. Every pattern uses bounded quantifiers only (no nested
 * unbounded repetition), so the scan stays linear; `anchor` is a sub-pattern that every match
 * contains, used by the prefilter to find the few windows worth running the rules on.
 */

export type RuleFamily =
  | "override"
  | "persona"
  | "leak"
  | "delimiter"
  | "addressee"
  | "exfiltration"
  | "memory"
  | "encoding";

export type RuleAction = "block" | "flag";

export interface Rule {
  /** Stable id, e.g. `PI-OVR-DE-01`. */
  id: string;
  family: RuleFamily;
  /** ISO 639-1 code, or `any` for structural rules. */
  language: string;
  /** What a match does on user text and on tool results. */
  user: RuleAction;
  tool: RuleAction;
  anchor: string;
  /** A second sub-pattern every match contains: the rule runs only where both are near. */
  also?: string;
  pattern: RegExp;
  /** Texts (already normalised) that must match; the rule tests check them. */
  examples: string[];
}

/** An alternation group. */
export function alt(words: readonly string[]): string {
  return `(?:${words.join("|")})`;
}

/** A bounded gap inside one sentence. */
export function gap(max: number): string {
  return `[^.!?\\n]{0,${max}}?`;
}

export interface RuleSpec {
  id: string;
  family: RuleFamily;
  language: string;
  user: RuleAction;
  tool: RuleAction;
  anchor: string;
  also?: string;
  source: string;
  examples: string[];
}

export function rule(spec: RuleSpec): Rule {
  return {
    id: spec.id,
    family: spec.family,
    language: spec.language,
    user: spec.user,
    tool: spec.tool,
    anchor: spec.anchor,
    ...(spec.also === undefined ? {} : { also: spec.also }),
    pattern: new RegExp(spec.source),
    examples: spec.examples,
  };
}
