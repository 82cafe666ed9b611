import type { Usage } from "../../canonical/usage.ts";

/** Drops fields that were not reported, so a usage object lists only what the upstream said. */
export function compact(usage: Usage): Usage {
  const out: Usage = {};
  for (const [key, value] of Object.entries(usage) as Array<[keyof Usage, number | undefined]>) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}
