/** Identifiers. Request ids sort by creation time, so newest-first listing is a reverse range. */
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Random bytes drawn from a pool refilled 4 KiB at a time (one crypto call per ~400 ids). */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** Uniform base36 characters (bytes ≥ 252 are redrawn: no modulo bias). */
function randomPart(length: number): string {
  let out = "";
  while (out.length < length) {
    const b = randomByte();
    if (b < 252) out += ALPHABET[b % 36];
  }
  return out;
}

/**
 * A time-ordered, otherwise opaque id: 10 base36 digits of milliseconds, then 10 random
 * base36 digits (~52 bits). No counter: an id says nothing about how many others were made.
 */
export function timeOrderedId(prefix: string, now = Date.now()): string {
  return `${prefix}${now.toString(36).padStart(10, "0")}${randomPart(10)}`;
}

/**
 * A sequential id's random part is drawn below half of the 10-digit space (36^10 < 2^53, so
 * plain numbers suffice), which leaves room for ~10^8 steps in one millisecond above any draw.
 */
const FRESH_SPACE = 36 ** 10 / 2;
/** The largest step between two sequential ids of one millisecond. */
const MAX_STEP = 2 ** 24;

let lastMs = -1;
let lastRandom = 0;

/**
 * Like `timeOrderedId`, but ids this process makes in one millisecond still sort in creation
 * order: a draw not above the previous one steps past it by a random amount. For trails listed
 * newest first within one organization (audit, ledger); request ids stay `timeOrderedId`.
 */
export function sequentialId(prefix: string, now = Date.now()): string {
  let random = Number.parseInt(randomPart(10), 36) % FRESH_SPACE;
  if (now === lastMs && random <= lastRandom) {
    random = lastRandom + 1 + (Number.parseInt(randomPart(5), 36) % MAX_STEP);
  }
  if (now >= lastMs) {
    lastMs = now;
    lastRandom = random;
  }
  return `${prefix}${now.toString(36).padStart(10, "0")}${random.toString(36).padStart(10, "0")}`;
}

/** The smallest id created at or after `time` (for range scans). */
export function timeOrderedIdFloor(prefix: string, time: number): string {
  return `${prefix}${time.toString(36).padStart(10, "0")}`;
}

export function randomId(prefix: string, length = 16): string {
  return `${prefix}${randomPart(length)}`;
}
