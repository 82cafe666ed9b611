/**
 * Normalisation before any rule or model sees a text: the same folding for training, rules and
 * scanning, so that "Ｉｇｎｏｒｅ", "ignоre" (Cyrillic о), "ig\u200Bnore" and "IGNORE" read alike.
 *
 * Steps: Unicode tag characters (U+E0020–E007E, invisible "ASCII smuggling") are decoded and
 * appended as text; zero-width and soft-hyphen characters are removed and counted; NFKC folds
 * full-width and compatibility forms; Cyrillic/Greek look-alikes inside words that also hold
 * Latin letters are folded to Latin; diacritics are stripped (rules are written without them);
 * everything is lower-cased. ASCII text takes a fast path (lower-casing only).
 */

export interface NormalizedText {
  text: string;
  /** Zero-width / invisible formatting characters removed. */
  zeroWidth: number;
  /** Unicode tag characters found (decoded and appended to `text`). */
  tags: number;
  /** Words in which look-alike letters were folded. */
  mixedScriptWords: number;
  /** `raw` was ASCII: `text` is it lower-cased, character for character. */
  ascii: boolean;
}

// deno-lint-ignore no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;
const ZERO_WIDTH = /[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]/g;
const ZERO_WIDTH_TEST = /[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]/;
const TAG_CHARS = /[\u{e0000}-\u{e007f}]/gu;
const TAG_TEST = /[\u{e0000}-\u{e007f}]/u;
const ACCENTED = /[\u00c0-\u024f\u1e00-\u1eff]|[\u0300-\u036f]/g;
const COMBINING = /[\u0300-\u036f]/g;
const LOOKALIKE_SCRIPT = /[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f\u0250-\u02af]/;
const WORD = /\p{L}+/gu;
const LATIN = /[a-z]/i;

/** Cyrillic and Greek letters that look like Latin ones. */
const LOOKALIKES: Record<string, string> = {
  "а": "a",
  "в": "b",
  "е": "e",
  "ё": "e",
  "к": "k",
  "м": "m",
  "н": "h",
  "о": "o",
  "р": "p",
  "с": "c",
  "т": "t",
  "у": "y",
  "х": "x",
  "і": "i",
  "ј": "j",
  "ѕ": "s",
  "ԁ": "d",
  "ɡ": "g",
  "α": "a",
  "β": "b",
  "ε": "e",
  "ι": "i",
  "κ": "k",
  "ν": "v",
  "ο": "o",
  "ρ": "p",
  "τ": "t",
  "υ": "u",
  "χ": "x",
};

/** Letters NFD does not decompose but that rules write in ASCII. */
const EXTRA_FOLD: Record<string, string> = { "ł": "l", "ß": "ss", "ø": "o", "æ": "ae", "œ": "oe" };
const FOLDED = new Map<string, string>();

/** "é" → "e", "ł" → "l", "ß" → "ss"; combining marks → "" (memoised per character). */
function foldAccent(ch: string): string {
  let folded = FOLDED.get(ch);
  if (folded === undefined) {
    folded = EXTRA_FOLD[ch] ?? ch.normalize("NFD").replace(COMBINING, "");
    FOLDED.set(ch, folded);
  }
  return folded;
}

export function normalizeText(raw: string): NormalizedText {
  if (!NON_ASCII.test(raw)) {
    return { text: raw.toLowerCase(), zeroWidth: 0, tags: 0, mixedScriptWords: 0, ascii: true };
  }
  let tags = 0;
  let tagText = "";
  let text = raw;
  if (TAG_TEST.test(text)) {
    text = text.replace(TAG_CHARS, (ch) => {
      tags++;
      const code = ch.codePointAt(0)! - 0xe0000;
      if (code >= 0x20 && code < 0x7f) tagText += String.fromCharCode(code);
      return "";
    });
  }
  let zeroWidth = 0;
  if (ZERO_WIDTH_TEST.test(text)) {
    text = text.replace(ZERO_WIDTH, () => {
      zeroWidth++;
      return "";
    });
  }
  text = text.normalize("NFKC");
  let mixedScriptWords = 0;
  if (LOOKALIKE_SCRIPT.test(text)) {
    text = text.replace(WORD, (word) => {
      if (!LATIN.test(word) || !LOOKALIKE_SCRIPT.test(word)) return word;
      mixedScriptWords++;
      let folded = "";
      for (const ch of word) folded += LOOKALIKES[ch.toLowerCase()] ?? ch;
      return folded;
    });
  }
  text = text.toLowerCase().replace(ACCENTED, foldAccent);
  if (tagText !== "") text += "\n" + tagText.toLowerCase();
  return { text, zeroWidth, tags, mixedScriptWords, ascii: false };
}
