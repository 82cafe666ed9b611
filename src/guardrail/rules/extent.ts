/**
 * The longest text a rule's pattern can match, from its syntax tree (npm
 * `@eslint-community/regexpp`): a match that contains an anchor word at position p lies within
 * p ± this length, so the matcher tests a rule only in those windows, and two anchor words
 * farther apart than this cannot belong to one match. Infinity for an unbounded quantifier
 * (rules promise none; the matcher then falls back to wide windows).
 */
import { type AST, RegExpParser } from "@eslint-community/regexpp";

const parser = new RegExpParser({ ecmaVersion: 2025 });

export function maxMatchLength(source: string, flags = ""): number {
  const unicode = flags.includes("u") || flags.includes("v");
  const pattern = parser.parsePattern(source, 0, source.length, {
    unicode: flags.includes("u"),
    unicodeSets: flags.includes("v"),
  });
  // One character of a class or set is one UTF-16 unit, or two with the u/v flag.
  return longest(pattern, unicode ? 2 : 1);
}

function longest(node: AST.Node, unit: number): number {
  switch (node.type) {
    case "Pattern":
    case "Group":
    case "CapturingGroup":
      return Math.max(0, ...node.alternatives.map((a) => longest(a, unit)));
    case "Alternative":
      return node.elements.reduce((sum: number, e: AST.Node) => sum + longest(e, unit), 0);
    case "Quantifier": {
      const inner = longest(node.element, unit);
      return inner === 0 ? 0 : node.max === Infinity ? Infinity : node.max * inner;
    }
    case "Assertion": // \b, ^, $ and lookarounds consume nothing
      return 0;
    case "Character":
      return node.value > 0xffff ? 2 : 1;
    case "CharacterSet":
    case "CharacterClass":
      return unit;
    default: // back-references, v-flag class strings: no bound claimed
      return Infinity;
  }
}
