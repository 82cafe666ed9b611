/**
 * `new Date(ms).toISOString()` for the request path: every request record's `created` (its
 * admission's recovery record and its settle each build one), and `toISOString` costs ~1 µs.
 * The second's prefix is kept, so requests started in the same second format only their
 * milliseconds. Anything but a whole number of milliseconds goes to `toISOString` itself.
 */
let cachedSecond = Number.NaN;
let cachedPrefix = "";

export function isoTime(ms: number): string {
  if (!Number.isInteger(ms)) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  const millis = ms - second * 1000;
  if (second !== cachedSecond) {
    const iso = new Date(ms).toISOString();
    // "…:SS.mmmZ" → "…:SS." (the year may have six digits and a sign: cut from the end).
    cachedPrefix = iso.slice(0, -4);
    cachedSecond = second;
  }
  return `${cachedPrefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
}
