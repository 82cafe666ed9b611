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

/** "é" → "e", "ł" → "l", "ß" → "ss"; combining marks → "". */
function foldAccent(ch: string): string {
  return EXTRA_FOLD[ch] ?? ch.normalize("NFD").replace(COMBINING, "");
}

/**
 * The folded form of every character in the ranges that fold (Latin-1 Supplement letters,
 * Latin Extended-A/B, Latin Extended Additional, combining marks), undefined where a
 * character stays as it is.
 */
const FOLD: Array<string | undefined> = [];
for (const [from, to] of [[0xc0, 0x24f], [0x300, 0x36f], [0x1e00, 0x1eff]] as const) {
  for (let c = from; c <= to; c++) {
    const ch = String.fromCharCode(c);
    const folded = foldAccent(ch);
    if (folded !== ch) FOLD[c] = folded;
  }
}

/** What a non-ASCII character asks of the normaliser (bits); see `needsOf`. */
const TAG = 1, ZERO = 2, NFKC = 4, LOOKALIKE = 8;
const NEEDS = new Uint8Array(0x2100);
for (let c = 0x80; c < NEEDS.length; c++) NEEDS[c] = needsOf(c);

/**
 * Zero-width characters, look-alike scripts, and whatever NFKC could change: a character
 * NFKC maps to something else, a combining mark or Hangul jamo (which compose with their
 * neighbours), anything outside the table (astral characters, full-width forms…).
 */
function needsOf(c: number): number {
  if (c >= 0xd800 && c <= 0xdbff) return c === 0xdb40 ? TAG | NFKC : NFKC;
  if (c === 0xfeff) return ZERO;
  if (c >= NEEDS.length) return NFKC;
  const ch = String.fromCharCode(c);
  let needs = ZERO_WIDTH_TEST.test(ch) ? ZERO : 0;
  if (LOOKALIKE_SCRIPT.test(ch)) needs |= LOOKALIKE;
  if (
    ch.normalize("NFKC") !== ch || /\p{M}/u.test(ch) || (c >= 0x1100 && c <= 0x11ff) ||
    (c >= 0xd800 && c <= 0xdfff)
  ) {
    needs |= NFKC;
  }
  return needs;
}

/**
 * Every character some step below needs (NEEDS non-zero, and all from U+2100 on), as one
 * regular expression: text without any (most European text) is only lower-cased and folded,
 * found by a native scan instead of a loop over its characters.
 */
const NEEDS_ANY = needsClass();

function needsClass(): RegExp {
  const hex = (c: number) => `\\u${c.toString(16).padStart(4, "0")}`;
  let ranges = "";
  for (let c = 0x80; c < NEEDS.length; c++) {
    if (NEEDS[c] === 0) continue;
    let end = c;
    while (end + 1 < NEEDS.length && NEEDS[end + 1] !== 0) end++;
    ranges += end === c ? hex(c) : `${hex(c)}-${hex(end)}`;
    c = end;
  }
  return new RegExp(`[${ranges}${hex(NEEDS.length)}-\\uffff]`);
}

/** Characters that FOLD changes (after lower-casing), and those that lower-case into them. */
const FOLDABLE = /[\u00c0-\u024f\u0300-\u036f\u1e00-\u1eff]/;

export function normalizeText(raw: string): NormalizedText {
  if (!NON_ASCII.test(raw)) {
    return { text: raw.toLowerCase(), zeroWidth: 0, tags: 0, mixedScriptWords: 0, ascii: true };
  }
  if (!NEEDS_ANY.test(raw)) {
    const text = raw.toLowerCase();
    return { text: foldAccents(text), zeroWidth: 0, tags: 0, mixedScriptWords: 0, ascii: false };
  }
  // One look at the characters decides which of the steps below this text needs.
  let needs = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 0x80) needs |= c < NEEDS.length ? NEEDS[c]! : needsOf(c);
  }
  let tags = 0;
  let tagText = "";
  let text = raw;
  if ((needs & TAG) !== 0 && TAG_TEST.test(text)) {
    text = text.replace(TAG_CHARS, (ch) => {
      tags++;
      const code = ch.codePointAt(0)! - 0xe0000;
      if (code >= 0x20 && code < 0x7f) tagText += String.fromCharCode(code);
      return "";
    });
  }
  let zeroWidth = 0;
  if ((needs & ZERO) !== 0) {
    text = text.replace(ZERO_WIDTH, () => {
      zeroWidth++;
      return "";
    });
  }
  if ((needs & NFKC) !== 0) text = text.normalize("NFKC");
  let mixedScriptWords = 0;
  // NFKC can make look-alike letters out of others (full-width Greek…): test again after it.
  if ((needs & (LOOKALIKE | NFKC)) !== 0 && LOOKALIKE_SCRIPT.test(text)) {
    text = text.replace(WORD, (word) => {
      if (!LATIN.test(word) || !LOOKALIKE_SCRIPT.test(word)) return word;
      mixedScriptWords++;
      let folded = "";
      for (const ch of word) folded += LOOKALIKES[ch.toLowerCase()] ?? ch;
      return folded;
    });
  }
  text = foldAccents(text.toLowerCase());
  if (tagText !== "") text += "\n" + tagText.toLowerCase();
  return { text, zeroWidth, tags, mixedScriptWords, ascii: false };
}

/** The characters FOLD changes, as one regular expression (built from the table). */
const FOLDS = foldClass();

function foldClass(): RegExp {
  const hex = (c: number) => `\\u${c.toString(16).padStart(4, "0")}`;
  let ranges = "";
  for (let c = 0; c < FOLD.length; c++) {
    if (FOLD[c] === undefined) continue;
    let end = c;
    while (FOLD[end + 1] !== undefined) end++;
    ranges += end === c ? hex(c) : `${hex(c)}-${hex(end)}`;
    c = end;
  }
  return new RegExp(`[${ranges}]`, "g");
}

const foldOne = (ch: string): string => FOLD[ch.charCodeAt(0)]!;

/**
 * Every character of FOLD replaced by its folded form, by one native replace: the result is a
 * flat string (pieces joined in a loop made a chain of concatenations that the text pass then
 * had to flatten: two copies of the text and a pair of small strings per accent, measured as
 * the largest allocation of a scan).
 */
function foldAccents(text: string): string {
  return FOLDABLE.test(text) ? text.replace(FOLDS, foldOne) : text;
}
