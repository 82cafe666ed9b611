/** Random secrets (session tokens, set-password tokens) and the hash under which they are kept. */
import { createHash, randomBytes } from "node:crypto";

/** 256 random bits, base64url. */
export function newSecretToken(): string {
  return randomBytes(32).toString("base64url");
}

/** SHA-256 hex: the only form in which a token is stored. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
