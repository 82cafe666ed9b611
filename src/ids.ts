/** Identifiers. Request ids sort by creation time, so newest-first listing is a reverse range. */
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

function randomPart(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
}

/** A time-ordered id: 10 base36 digits of milliseconds, then randomness. */
export function timeOrderedId(prefix: string, now = Date.now()): string {
  return `${prefix}${now.toString(36).padStart(10, "0")}${randomPart(10)}`;
}

/** The smallest id created at or after `time` (for range scans). */
export function timeOrderedIdFloor(prefix: string, time: number): string {
  return `${prefix}${time.toString(36).padStart(10, "0")}`;
}

export function randomId(prefix: string, length = 16): string {
  return `${prefix}${randomPart(length)}`;
}
