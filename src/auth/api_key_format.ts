/** The spec's key format: `sk-ex-` + 43 base62 characters, 49 in total. */
import { createHash } from "node:crypto";

export const API_KEY_PREFIX = "sk-ex-";
const KEY_PATTERN = /^sk-ex-[0-9A-Za-z]{43}$/;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function isWellFormedApiKey(key: string): boolean {
  return key.length === 49 && KEY_PATTERN.test(key);
}

/** A new key from 43 uniformly drawn base62 characters (rejection sampling, no modulo bias). */
export function generateApiKey(): string {
  let out = API_KEY_PREFIX;
  while (out.length < 49) {
    for (const b of crypto.getRandomValues(new Uint8Array(64))) {
      if (b < 248 && out.length < 49) out += BASE62[b % 62];
    }
  }
  return out;
}

/** SHA-256 of the key, hex: the only form in which a key is stored. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
