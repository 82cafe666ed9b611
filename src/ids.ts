/** Identifiers. Request ids sort by creation time, so newest-first listing is a reverse range. */
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

function randomPart(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
}

/**
 * Per-process randomness plus a counter: unique within the process and, by the random part,
 * across processes, without a crypto call per id (a hot-path cost of several µs).
 */
const PROCESS_PART = randomPart(6);
let counter = 0;

/** A time-ordered id: 10 base36 digits of milliseconds, then 6 random and 4 counter digits. */
export function timeOrderedId(prefix: string, now = Date.now()): string {
  counter = (counter + 1) % 1_679_616; // 36⁴
  return `${prefix}${now.toString(36).padStart(10, "0")}${PROCESS_PART}${
    counter.toString(36).padStart(4, "0")
  }`;
}

/** The smallest id created at or after `time` (for range scans). */
export function timeOrderedIdFloor(prefix: string, time: number): string {
  return `${prefix}${time.toString(36).padStart(10, "0")}`;
}

export function randomId(prefix: string, length = 16): string {
  return `${prefix}${randomPart(length)}`;
}
