/** Exact conversions between integer micro-EUR and decimal euro strings (no floating point). */

/** "1234.5" or "0.000001" → micro-EUR; undefined when not a non-negative amount with ≤ 6 decimals. */
export function parseEur(text: string): number | undefined {
  const match = /^\s*(\d{1,12})(?:[.,](\d{1,6}))?\s*$/.exec(text);
  if (!match) return undefined;
  const micro = BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? "").padEnd(6, "0"));
  return micro > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(micro);
}

/** micro-EUR → "12.34" (at least two decimals, up to six, never rounded). */
export function formatEur(micro: number | bigint): string {
  const value = BigInt(micro);
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const whole = (abs / 1_000_000n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0{1,4}$/, "");
  return `${sign}${whole}.${fraction}`;
}
