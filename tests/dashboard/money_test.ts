/**
 * How the dashboard writes money (`src/dashboard/money.ts`, whose formatter the browser's charts
 * load too): "€ 1,234.50", exact from integer micro-EUR unless a precision is asked for; chart
 * axes get as many decimals as their tick spacing needs, so small amounts never read "0 0 0".
 */
import assert from "node:assert/strict";
import {
  axisDecimals,
  eurFieldValue,
  formatEur,
  moneyTicks,
  parseEur,
} from "../../src/dashboard/money.ts";

Deno.test("formatEur — exact, at least two decimals, thousands grouped, the euro sign first", () => {
  assert.equal(formatEur(0), "€\u00a00.00");
  assert.equal(formatEur(1), "€\u00a00.000001");
  assert.equal(formatEur(63), "€\u00a00.000063");
  assert.equal(formatEur(1_000), "€\u00a00.001");
  assert.equal(formatEur(12_500_000), "€\u00a012.50");
  assert.equal(formatEur(247_307_261), "€\u00a0247.307261");
  assert.equal(formatEur(1_234_567_890_000), "€\u00a01,234,567.89");
  assert.equal(formatEur(-3_000_000), "-€\u00a03.00");
  assert.equal(formatEur(9_007_199_254_740_993n), "€\u00a09,007,199,254.740993");
});

Deno.test("formatEur — a fixed number of decimals rounds half away from zero", () => {
  assert.equal(formatEur(63, { decimals: 6 }), "€\u00a00.000063");
  assert.equal(formatEur(1_000, { decimals: 6 }), "€\u00a00.001000");
  assert.equal(formatEur(12_345, { decimals: 4 }), "€\u00a00.0123");
  assert.equal(formatEur(12_350, { decimals: 4 }), "€\u00a00.0124");
  assert.equal(formatEur(-12_350, { decimals: 4 }), "-€\u00a00.0124");
  assert.equal(formatEur(1_995_000, { decimals: 2 }), "€\u00a02.00");
  assert.equal(formatEur(999_999_500_000, { decimals: 0 }), "€\u00a01,000,000");
  // A chart's tick may arrive as a float; it is a whole number of micro-EUR.
  assert.equal(formatEur(399.99999999, { decimals: 4 }), "€\u00a00.0004");
});

Deno.test("axisDecimals — enough decimals for ticks that far apart, never fewer than two", () => {
  assert.equal(axisDecimals(200), 4);
  assert.equal(axisDecimals(250), 5);
  assert.equal(axisDecimals(25_000), 3);
  assert.equal(axisDecimals(50_000), 2);
  assert.equal(axisDecimals(5_000_000), 2);
  assert.equal(axisDecimals(1), 6);
  assert.equal(axisDecimals(0.5), 6);
});

Deno.test("moneyTicks — sub-cent ticks read apart (not '0 0 0 / 0.001')", () => {
  const labels = moneyTicks([0, 200, 400, 600, 800, 1000], 200);
  assert.deepEqual(labels, [
    "€\u00a00.0000",
    "€\u00a00.0002",
    "€\u00a00.0004",
    "€\u00a00.0006",
    "€\u00a00.0008",
    "€\u00a00.0010",
  ]);
  assert.equal(new Set(labels).size, labels.length);
  assert.deepEqual(moneyTicks([0, 50_000, 100_000], 50_000), [
    "€\u00a00.00",
    "€\u00a00.05",
    "€\u00a00.10",
  ]);
  assert.deepEqual(moneyTicks([0, 2_500_000_000], 2_500_000_000), [
    "€\u00a00.00",
    "€\u00a02,500.00",
  ]);
});

Deno.test("eurFieldValue — what a form field is filled with reads back exactly", () => {
  for (const micro of [0, 1, 2_000_000, 12_345_678, 1_234_567_000_000]) {
    const text = eurFieldValue(micro);
    assert.doesNotMatch(text, /[€, ]/);
    assert.equal(parseEur(text), micro);
  }
  assert.equal(eurFieldValue(2_000_000), "2.00");
});
