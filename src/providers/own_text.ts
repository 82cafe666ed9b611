/**
 * A string that holds no reference to the text it was cut from. V8 gives a slice of 13 or
 * more characters (and the strings an SSE parser hands out) as a view into its parent, so a
 * short string kept for a stream's whole life (the pass-through's learnt head) kept the whole
 * first upstream read alive with it; and a finished stream's objects can outlive several
 * young-generation collections (docs/performance.md, "Finished streams collected young"), which then promoted that
 * read to the old generation. The concatenation is flattened into a fresh string by `slice`.
 */
export function ownText(text: string): string {
  return (" " + text).slice(1);
}
