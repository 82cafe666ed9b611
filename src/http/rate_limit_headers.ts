/**
 * The rate-limit headers the ecosystem reads (OpenAI's names): the key's requests per minute,
 * what is left of them now, and when the window is empty again, as OpenAI formats durations
 * (`1m5s`, `42s`).
 */
import type { RateDecision } from "../limits/rate_limiter.ts";

export function rateLimitHeaders(
  rpm: number,
  decision: RateDecision | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { "x-ratelimit-limit-requests": String(rpm) };
  // Without a decision (the gate's store read failed: fail-open) only the limit is known.
  if (decision === undefined) return headers;
  headers["x-ratelimit-remaining-requests"] = String(decision.remaining);
  headers["x-ratelimit-reset-requests"] = duration(decision.resetSeconds);
  return headers;
}

function duration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return minutes > 0 ? `${minutes}m${rest}s` : `${rest}s`;
}
