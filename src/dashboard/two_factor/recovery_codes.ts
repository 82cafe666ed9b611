/**
 * Recovery codes: ten one-time codes shown once when two-factor sign-in is turned on (or
 * renewed), each standing in for a TOTP code when the phone is lost. About 60 random bits each, in an
 * alphabet without look-alikes (no 0/o, 1/l/i), written `xxxx-xxxx-xxxx`; stored only as
 * SHA-256 (high-entropy secrets need no slow hash, as with session tokens).
 */
import { hashToken } from "../secret_tokens.ts";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"; // 31 symbols; rejection sampling below
const LENGTH = 12;

function oneCode(): string {
  let out = "";
  while (out.length < LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      // 248 = 8 × 31: bytes above it would favour the first symbols.
      if (byte < 248 && out.length < LENGTH) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return `${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8)}`;
}

/** A new set of codes (to show once) and their hashes (to store). */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, oneCode);
  return { codes, hashes: codes.map(recoveryCodeHash) };
}

/** The stored form of a code as typed: case, spaces and dashes do not matter. */
export function recoveryCodeHash(typed: string): string {
  return hashToken(typed.toLowerCase().replace(/[\s-]+/g, ""));
}
