/** Every rule, in a fixed order (a rule's index is its slot in the anchor index). */
import type { Rule } from "./rule.ts";
import { languageRules } from "./language_rules.ts";
import { structuralRules } from "./structural_rules.ts";

export const RULES: readonly Rule[] = [...languageRules(), ...structuralRules()];
