/**
 * Failed sign-ins counted per account (the e-mail tried, known or not) and per client address
 * in fixed 15-minute windows: 10 failures in a window refuse further tries of that account or
 * from that address until the window ends. Counters live in the store, so every instance
 * sharing it sees them.
 */
import type { AccountStore } from "../state/account_store.ts";

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES = 10;

export interface ThrottleSubjects {
  email: string;
  address: string;
}

function subjects(s: ThrottleSubjects): string[] {
  return [`email:${s.email}`, `addr:${s.address}`];
}

/** Seconds until the window ends when throttled, else 0. */
export async function throttledFor(
  accounts: AccountStore,
  s: ThrottleSubjects,
  now: number,
): Promise<number> {
  const window = Math.floor(now / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS;
  const counts = await Promise.all(subjects(s).map((x) => accounts.loginFailures(x, window)));
  if (counts.every((n) => n < MAX_FAILURES)) return 0;
  return Math.max(1, Math.ceil((window + LOGIN_WINDOW_MS - now) / 1000));
}

export async function noteFailure(
  accounts: AccountStore,
  s: ThrottleSubjects,
  now: number,
): Promise<void> {
  const window = Math.floor(now / LOGIN_WINDOW_MS) * LOGIN_WINDOW_MS;
  for (const x of subjects(s)) await accounts.addLoginFailure(x, window, 2 * LOGIN_WINDOW_MS);
}
