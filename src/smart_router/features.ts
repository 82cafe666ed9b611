/**
 * The request classifier's features: dense numbers (length, digits, structure), task-type
 * flags from multilingual keyword patterns, and hashed word uni/bigrams. Pure and cheap: only
 * the first and last `SCAN_HALF` characters of the text are scanned, so a 2 MiB body costs the
 * same as an 8 KiB one. The same code runs in the gateway and in the training script.
 */

/** Characters scanned from each end of the text. */
export const SCAN_HALF = 4096;
/** Hashed n-gram buckets (a power of two). */
export const HASH_BUCKETS = 1 << 12;

export const TASKS = [
  "code",
  "math",
  "reasoning",
  "extraction",
  "writing",
  "roleplay",
  "translation",
  "chat",
] as const;
export type Task = typeof TASKS[number] | "general";

/** Task-type patterns (EN/DE/FR/ES/IT/NL/PL keywords); each a flag feature. */
const TASK_PATTERNS: Record<typeof TASKS[number], RegExp> = {
  code: new RegExp(
    [
      "```",
      "\\b(?:def|class|function|return|import|const|let|var|public|static|void|async|await|lambda|struct|impl|fn)\\b",
      "\\b(?:python|javascript|typescript|java|c\\+\\+|rust|golang|sql|regex|bash|html|css|api|bug|compile[rd]?|debug|algorithm|recursion|array|linked list)\\b",
      "[{};][ \\t]*$",
      "\\b(?:code|coding|program(?:me)?|programm|programa|codice|kod)\\b",
    ].join("|"),
    "im",
  ),
  math: new RegExp(
    [
      "\\d\\s*[-+*/^=<>]\\s*\\d",
      "\\b(?:solve|equation|integral|derivative|probability|calculate|compute|how many|how much|sum of|prime|theorem|prove|matrix|polynomial|percent|ratio)\\b",
      "\\b(?:berechne|gleichung|wahrscheinlichkeit|calcule[rz]?|équation|calcula|ecuación|calcola|equazione|bereken|vergelijking|oblicz|równanie)\\b",
      "[√∑∫π≤≥≠]",
    ].join("|"),
    "i",
  ),
  reasoning: new RegExp(
    [
      "\\b(?:step[- ]by[- ]step|explain why|why does|why is|reason(?:ing)?|analy[sz]e|compare|evaluate|justify|deduce|infer|implications?|trade-?offs?|pros and cons|puzzle|riddle)\\b",
      "\\b(?:schritt für schritt|begründe|warum|analysiere|pourquoi|analyse[rz]|por qué|analiza|perché|analizza|waarom|dlaczego)\\b",
    ].join("|"),
    "i",
  ),
  extraction: new RegExp(
    [
      "\\b(?:extract|list all|identify (?:the|all)|json|csv|table|fields?|parse|summari[sz]e|summary|classify|categori[sz]e|tag|label)\\b",
      "\\b(?:extrahiere|zusammenfassung|fasse|extraire|résume[rz]?|resumen|extrae|estrai|riassumi|samenvatting|wyodrębnij|streszczenie)\\b",
    ].join("|"),
    "i",
  ),
  writing: new RegExp(
    [
      "\\b(?:write|compose|draft|rewrite|poem|story|essay|blog|email|letter|slogan|lyrics|haiku|limerick|article|speech|tweet|headline|paragraph)\\b",
      "\\b(?:schreibe|gedicht|geschichte|écri[rsv]|poème|histoire|escribe|poema|cuento|scrivi|poesia|storia|schrijf|gedicht|napisz|wiersz)\\b",
    ].join("|"),
    "i",
  ),
  roleplay: new RegExp(
    [
      "\\b(?:pretend|role-?play|act as|you are an?|imagine (?:you|yourself)|embody|in the style of|as if you were|persona|character)\\b",
      "\\b(?:stell dir vor|du bist|imagine[sz]? que|tu es|imagina que|eres un|immagina|sei un|stel je voor|wyobraź sobie)\\b",
    ].join("|"),
    "i",
  ),
  translation: new RegExp(
    "\\b(?:translate|translation|übersetze|übersetzung|tradui[st]|traduction|traduce|traducción|traduci|traduzione|vertaal|przetłumacz)\\b",
    "i",
  ),
  chat: new RegExp(
    "^\\s*(?:hi|hello|hey|thanks|thank you|good (?:morning|evening)|how are you|hallo|danke|bonjour|merci|hola|gracias|ciao|grazie|dank je|cześć|dziękuję)\\b",
    "i",
  ),
};

/** An answer option ("A. …", "(b) …") opening a line; three or more make a closed question. */
const OPTION_LINE = /^[ \t]*\(?[A-Ea-e][.)][ \t]/gm;

function isMultipleChoice(text: string): boolean {
  let n = 0;
  OPTION_LINE.lastIndex = 0;
  while (OPTION_LINE.exec(text) && ++n < 3);
  return n >= 3;
}

/** Dense feature names, in vector order (after them come the task flags). */
export const DENSE = [
  "log_length",
  "log_words",
  "digit_share",
  "log_numbers",
  "log_lines",
  "question_marks",
  "non_ascii_share",
  "long_words_share",
] as const;

export const FEATURE_NAMES: readonly string[] = [...DENSE, ...TASKS.map((t) => `task_${t}`)];

export interface Features {
  /** Dense features then task flags, `FEATURE_NAMES` order. */
  dense: Float64Array;
  /** Hashed n-gram bucket indices (with repeats). */
  grams: Uint32Array;
  /** Flags that fired, in `TASKS` order. */
  tasks: Array<typeof TASKS[number]>;
  /** Characters of text before capping (0: nothing to classify). */
  length: number;
}

/** The text actually scanned: first and last `SCAN_HALF` characters. */
export function scannedText(text: string): string {
  if (text.length <= 2 * SCAN_HALF) return text;
  return text.slice(0, SCAN_HALF) + "\n" + text.slice(-SCAN_HALF);
}

/** FNV-1a, 32 bits. */
function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const WORD = /[\p{L}\p{N}_]+/gu;

const NO_GRAMS = new Uint32Array(0);

/**
 * `grams: false` skips the hashed n-grams (the classifier passes it when its weights have
 * none: the logit ignores them then, and hashing every word is a third of the work).
 */
export function extractFeatures(text: string, options: { grams?: boolean } = {}): Features {
  const withGrams = options.grams !== false;
  const length = text.length;
  const scanned = scannedText(text);
  const n = Math.max(1, scanned.length);
  let digits = 0;
  let nonAscii = 0;
  let questions = 0;
  let lines = 1;
  for (let i = 0; i < scanned.length; i++) {
    const c = scanned.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c === 63) questions++;
    else if (c === 10) lines++;
    else if (c > 127) nonAscii++;
  }
  const words = scanned.toLowerCase().match(WORD) ?? [];
  let longWords = 0;
  let numbers = 0;
  const grams = withGrams ? new Uint32Array(words.length * 2) : NO_GRAMS;
  let g = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.length >= 9) longWords++;
    if (w.charCodeAt(0) >= 48 && w.charCodeAt(0) <= 57) numbers++;
    if (!withGrams) continue;
    grams[g++] = fnv1a(w) & (HASH_BUCKETS - 1);
    if (i > 0) grams[g++] = fnv1a(w, fnv1a(words[i - 1]!)) & (HASH_BUCKETS - 1);
  }
  // A closed question with answer options is knowledge QA: the topic words in it say nothing
  // about the task, so no task flag fires (length and structure still count).
  // Two or more numbers in a question is a word problem: maths.
  const dense = new Float64Array(FEATURE_NAMES.length);
  const tasks: Features["tasks"] = [];
  if (!isMultipleChoice(scanned)) {
    for (let i = 0; i < TASKS.length; i++) {
      const t = TASKS[i]!;
      if (TASK_PATTERNS[t].test(scanned) || (t === "math" && numbers >= 2 && questions > 0)) {
        tasks.push(t);
        dense[DENSE.length + i] = 1;
      }
    }
  }
  dense[0] = Math.log1p(length) / 8;
  dense[1] = Math.log1p(words.length) / 6;
  dense[2] = (digits / n) * 4;
  dense[3] = Math.log1p(numbers) / 3;
  dense[4] = Math.log1p(lines) / 3;
  dense[5] = Math.min(questions, 5) / 5;
  dense[6] = (nonAscii / n) * 4;
  dense[7] = words.length ? (longWords / words.length) * 4 : 0;
  return { dense, grams: grams.subarray(0, g), tasks, length };
}
