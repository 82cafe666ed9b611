import { ok as assert, strictEqual, throws } from "node:assert/strict";
import { isoTime } from "../../src/billing/iso_time.ts";

Deno.test("isoTime formats as toISOString across milliseconds, seconds, days and years", () => {
  const starts = [
    Date.UTC(2026, 10, 24, 23, 59, 59, 990),
    Date.UTC(1999, 11, 31, 23, 59, 58, 0),
    0,
    -1500,
    Date.UTC(-5, 0, 1),
    8.64e15 - 2_000,
  ];
  let checked = 0;
  for (const start of starts) {
    for (let ms = start; ms < start + 2_000; ms += 7) {
      strictEqual(isoTime(ms), new Date(ms).toISOString(), `at ${ms}`);
      checked++;
    }
    // Back to an earlier second: the cached prefix must not be reused.
    strictEqual(isoTime(start), new Date(start).toISOString());
  }
  assert(checked > 1_500);
});

Deno.test("isoTime keeps toISOString's answer for fractions and its error for invalid times", () => {
  strictEqual(isoTime(1_795_561_908_146.7), new Date(1_795_561_908_146.7).toISOString());
  strictEqual(isoTime(-0.5), new Date(-0.5).toISOString());
  throws(() => isoTime(Number.NaN), RangeError);
  throws(() => isoTime(8.64e15 + 1), RangeError);
});
