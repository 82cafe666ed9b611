/**
 * Sign-in throttling. Counters live in the store, so every instance sharing it sees them.
 *
 * - Per (account, client address): at most 10 attempts per fixed 15-minute window. Each
 *   attempt is reserved atomically before its password is hashed (of 14 parallel tries, 10 run)
 *   and a successful sign-in hands its reservation back; the 11th gets 429 until the window
 *   ends. An attacker's tries from another address never use up the owner's.
 * - Per account (the e-mail tried, known or not), over all addresses: after 20 failures in the
 *   window the account slows down — at most 2 attempts a minute from an address it has not
 *   signed in from in the last 30 to 60 days (429 for at most a minute, never longer). A spread-out
 *   attacker gets 2 guesses a minute; the owner at a known address is not slowed.
 */
import type { AccountStore } from "../state/account_store.ts";
import { tooManyAttempts } from "./errors.ts";

export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Attempts per account and client address per window. */
export const PAIR_ATTEMPTS = 10;
/** Failures of an account (every address) per window before it slows down. */
export const ACCOUNT_FAILURES = 20;
/** While slowed down: attempts per account per minute from an address it is not known at. */
export const SLOW_ATTEMPTS_PER_MINUTE = 2;
const MINUTE_MS = 60_000;
/** An address stays known this long (in fixed periods: this one and the one before). */
const KNOWN_PERIOD_MS = 30 * 86_400_000;

export interface ThrottleSubjects {
  email: string;
  address: string;
}

/** A reserved attempt: the caller reports how it ended. */
export interface Attempt {
  succeeded(): Promise<void>;
  failed(): Promise<void>;
}

const start = (now: number, size: number) => Math.floor(now / size) * size;
const secondsUntil = (end: number, now: number) => Math.max(1, Math.ceil((end - now) / 1000));

async function knownAddress(accounts: AccountStore, subject: string, now: number) {
  const period = start(now, KNOWN_PERIOD_MS);
  const seen = await Promise.all(
    [period, period - KNOWN_PERIOD_MS].map((p) => accounts.loginFailures(subject, p)),
  );
  return seen.some((n) => n > 0);
}

/** Reserves one sign-in attempt before the password is checked, or throws 429. */
export async function reserveAttempt(
  accounts: AccountStore,
  s: ThrottleSubjects,
  now: number,
): Promise<Attempt> {
  const window = start(now, LOGIN_WINDOW_MS);
  const ttl = 2 * LOGIN_WINDOW_MS;
  const pair = `pair:${s.email}|${s.address}`;
  const account = `account:${s.email}`;
  const known = `known:${s.email}|${s.address}`;
  if (!await accounts.reserveLoginAttempt(pair, window, PAIR_ATTEMPTS, ttl)) {
    throw tooManyAttempts(secondsUntil(window + LOGIN_WINDOW_MS, now));
  }
  const failures = await accounts.loginFailures(account, window);
  if (failures >= ACCOUNT_FAILURES && !await knownAddress(accounts, known, now)) {
    const minute = start(now, MINUTE_MS);
    const slot = `slow:${s.email}`;
    if (
      !await accounts.reserveLoginAttempt(slot, minute, SLOW_ATTEMPTS_PER_MINUTE, 2 * MINUTE_MS)
    ) {
      // Not tried: the pair's reservation goes back.
      await accounts.releaseLoginAttempt(pair, window, ttl);
      throw tooManyAttempts(secondsUntil(minute + MINUTE_MS, now));
    }
  }
  return {
    async succeeded() {
      await accounts.releaseLoginAttempt(pair, window, ttl);
      await accounts.addLoginFailure(known, start(now, KNOWN_PERIOD_MS), 2 * KNOWN_PERIOD_MS);
    },
    async failed() {
      await accounts.addLoginFailure(account, window, ttl);
    },
  };
}
