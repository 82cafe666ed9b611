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

/** V8 copies a slice shorter than this; a longer one is a view into its parent. */
const SLICE_VIEW_MIN = 13;

/** `text.slice(start, end)` holding no reference to `text` (a copy only where V8 makes a view). */
export function ownSlice(text: string, start: number, end: number): string {
  const slice = text.slice(start, end);
  return slice.length < SLICE_VIEW_MIN ? slice : ownText(slice);
}
