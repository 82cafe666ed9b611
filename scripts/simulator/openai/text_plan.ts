/**
 * Deterministic answer texts and their split into stream pieces. Token counts in this
 * simulator are whitespace-separated words (cheap and deterministic; not a real tokenizer).
 */

/** The plain answer (never an echo of the prompt). */
export const ANSWER_TEXT = "This is the simulated upstream answer. " +
  "The weather in the harbour was calm this morning and the boats left early. " +
  "Every reply from this simulator is deterministic, so tests can compare it exactly.";

export const REASONING_TEXT = "The user wants a short answer. " +
  "I will reply briefly and plainly, without repeating the question.";

export interface TextPlan {
  readonly text: string;
  readonly pieces: readonly string[];
  readonly tokens: number;
}

const WORDS = ANSWER_TEXT.split(" ");
const cache = new Map<number, TextPlan>();

/** The plain answer split into exactly `chunks` pieces (words repeat cyclically if needed). */
export function answerPlan(chunks: number): TextPlan {
  const cached = cache.get(chunks);
  if (cached !== undefined) return cached;
  const words = chunks <= WORDS.length
    ? WORDS
    : Array.from({ length: chunks }, (_, i) => WORDS[i % WORDS.length] ?? "");
  const plan = planOf(words, chunks);
  cache.set(chunks, plan);
  return plan;
}

/** Splits a text into at most `chunks` pieces on word boundaries. */
export function textPlan(text: string, chunks: number): TextPlan {
  return planOf(text.split(" "), chunks);
}

/** Keeps the first `maxTokens` words; undefined when the plan already fits. */
export function truncatePlan(
  plan: TextPlan,
  maxTokens: number,
  chunks: number,
): TextPlan | undefined {
  if (plan.tokens <= maxTokens) return undefined;
  return planOf(plan.text.split(" ").slice(0, Math.max(maxTokens, 0)), chunks);
}

/** Splits a string into at most `chunks` pieces of roughly equal length (for JSON answers). */
export function splitEvenly(text: string, chunks: number): string[] {
  const n = Math.max(1, Math.min(chunks, text.length));
  const size = Math.ceil(text.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length > 0 ? pieces : [""];
}

/** Whitespace-separated word count: the simulator's token count. */
export function countWords(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || c === 10 || c === 9 || c === 13;
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

function planOf(words: readonly string[], chunks: number): TextPlan {
  const n = Math.max(1, Math.min(chunks, words.length));
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = Math.round(((i + 1) * words.length) / n);
    const last = i === n - 1;
    pieces.push(words.slice(start, end).join(" ") + (last ? "" : " "));
    start = end;
  }
  const text = pieces.join("");
  return { text, pieces, tokens: countWords(text) };
}
