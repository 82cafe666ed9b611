/**
 * Password hashing: scrypt from `node:crypto` (no dependency; Deno runs it off the event loop,
 * so a login never stalls the request API in the same process). Default cost N = 2^17, r = 8,
 * p = 1 (OWASP's scrypt minimum, 128 MiB): ≈ 480 ms per hash measured on the 2-core CI
 * machine. Hashes are self-describing (`scrypt$logN$r$p$salt$hash`, base64url), so a cost
 * change needs no rehash of existing users.
 */
import { Buffer } from "node:buffer";
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const KEY_LENGTH = 32;
const R = 8;
const P = 1;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number) {
  return new Promise<Buffer>((resolve, reject) => {
    const N = 2 ** logN;
    scrypt(
      password,
      salt,
      KEY_LENGTH,
      { N, r, p, maxmem: 256 * N * r + 1024 * 1024 },
      (e, k) => e ? reject(e) : resolve(k),
    );
  });
}

export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, logN, R, P);
  return `scrypt$${logN}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** True when `password` matches `stored`; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const expected = Buffer.from(parts[5]!, "base64url");
  const key = await derive(password, Buffer.from(parts[4]!, "base64url"), logN, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Work of the same cost as a real check, for unknown e-mails (same timing, same answer). */
export async function burnPasswordCheck(password: string, logN: number): Promise<false> {
  await derive(password, randomBytes(16), logN, R, P);
  return false;
}

/** The password rules, as one message or undefined when acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 12) return "The password must be at least 12 characters long.";
  if (password.length > 200) return "The password must be at most 200 characters long.";
  return undefined;
}
