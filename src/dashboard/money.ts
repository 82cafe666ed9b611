/**
 * Money on the dashboard, exact between integer micro-EUR and decimal euro text (no floating
 * point). How an amount is written lives in `assets/money_format.js`, the one formatter the pages
 * and the browser's charts share; this module adds what only the server needs: reading an amount
 * typed into a form and writing one back into a form field.
 */
export { axisDecimals, formatEur, moneyTicks } from "./assets/money_format.js";

/** "1234.5" or "0.000001" → micro-EUR; undefined when not a non-negative amount with ≤ 6 decimals. */
export function parseEur(text: string): number | undefined {
  const match = /^\s*(\d{1,12})(?:[.,](\d{1,6}))?\s*$/.exec(text);
  if (!match) return undefined;
  const micro = BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? "").padEnd(6, "0"));
  return micro > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(micro);
}

/** micro-EUR → the text a form field is filled with, which `parseEur` reads back: "1234.50". */
export function eurFieldValue(micro: number): string {
  const whole = Math.trunc(micro / 1_000_000);
  const fraction = String(micro % 1_000_000).padStart(6, "0").replace(/0{1,4}$/, "");
  return `${whole}.${fraction}`;
}
