// How the dashboard writes an amount of money. This one file is served to the browser (the
// charts' axes and legends, /static/money_format.js) and imported by the server's pages through
// `../money.ts`, so every amount on every page reads the same way: "€ 1,234.50" (with a no-break
// space after the sign).
// Plain JavaScript with JSDoc types: the dashboard has no build step.

const MICRO = 1_000_000n;

/**
 * Integer micro-EUR → "€ 1,234.50". Without `decimals`: exact, at least two decimals and up to
 * six, never rounded ("€ 0.000063", "€ 12.50"). With `decimals` (0–6): exactly that many,
 * rounded half away from zero (chart ticks, where the tick spacing decides the precision).
 *
 * @param {number | bigint} micro
 * @param {{ decimals?: number }} [options]
 * @returns {string}
 */
export function formatEur(micro, options = {}) {
  const value = typeof micro === "bigint" ? micro : BigInt(Math.round(micro));
  const sign = value < 0n ? "-" : "";
  let abs = value < 0n ? -value : value;
  const decimals = options.decimals;
  let fraction;
  if (decimals === undefined) {
    fraction = (abs % MICRO).toString().padStart(6, "0").replace(/0{1,4}$/, "");
  } else {
    const places = Math.max(0, Math.min(6, Math.trunc(decimals)));
    const unit = 10n ** BigInt(6 - places);
    abs = ((abs + unit / 2n) / unit) * unit;
    fraction = (abs % MICRO).toString().padStart(6, "0").slice(0, places);
  }
  const whole = (abs / MICRO).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  // A no-break space: the sign never ends a line without its number.
  return `${sign}€\u00a0${whole}${fraction ? `.${fraction}` : ""}`;
}

/**
 * The decimals a money axis needs so that ticks `increment` micro-EUR apart all read
 * differently: 200 → 4 ("€ 0.0002"), 25,000 → 3, 50,000 → 2; never fewer than two.
 *
 * @param {number} increment
 * @returns {number}
 */
export function axisDecimals(increment) {
  let step = Math.round(increment);
  if (step < 1) return 6;
  let zeros = 0;
  while (zeros < 6 && step % 10 === 0) {
    step /= 10;
    zeros++;
  }
  return Math.max(2, 6 - zeros);
}

/**
 * A money axis's tick labels (uPlot's axis `values`): ticks in micro-EUR, `increment` apart.
 *
 * @param {number[]} ticks
 * @param {number} increment
 * @returns {string[]}
 */
export function moneyTicks(ticks, increment) {
  const decimals = axisDecimals(increment);
  return ticks.map((tick) => formatEur(tick, { decimals }));
}
