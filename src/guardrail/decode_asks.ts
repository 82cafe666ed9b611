/**
 * Requests to decode ("apply rot13", "read it backwards"): ROT13 and reversed text are tried
 * only near one of them. Each pattern comes with the words every match of it starts a word
 * with, so the anchor pass (rules/anchors.ts) finds the places worth testing in the same pass
 * that finds the rules' anchors, instead of running the patterns over the whole text.
 */

export interface DecodeAsk {
  encoding: "rot13" | "reversed";
  /** Over normalised text. */
  pattern: RegExp;
  /** Every match holds a word beginning with one of these (≤ 3 letters: the whole word). */
  words: readonly string[];
}

export const DECODE_ASKS: readonly DecodeAsk[] = [
  {
    encoding: "rot13",
    pattern: /rot[\s-]?13|caesar|cesar/,
    words: ["rot", "rot13", "caesar", "cesar"],
  },
  {
    encoding: "reversed",
    pattern:
      /\brevers|backwards?\b|ruckwarts|a l'envers|al reves|al contrario|achterstevoren|wspak|od tylu/,
    words: [
      "revers",
      "backward",
      "ruckwarts",
      "envers",
      "reves",
      "contrario",
      "achterstevoren",
      "wspak",
      "tylu",
    ],
  },
];
