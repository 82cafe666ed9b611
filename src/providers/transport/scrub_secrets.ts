/**
 * Scrubs credentials from an upstream error body before it can reach a client (a passthrough
 * 4xx is returned as the provider wrote it, and a provider may quote the request): every
 * credential-bearing header value the gateway sent (and each long token inside it, e.g. a
 * SigV4 access key id or a Bearer token), and anything shaped like an `Authorization` or
 * `x-api-key` value.
 */
const SENSITIVE_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
  "x-amz-security-token",
  "cookie",
]);

export const REDACTED = "[redacted]";

/** The secrets in a request's headers: whole values and their long tokens (≥ 12 chars). */
export function headerSecrets(headers: HeadersInit): string[] {
  const out = new Set<string>();
  for (const [name, value] of new Headers(headers)) {
    if (!SENSITIVE_HEADERS.has(name.toLowerCase()) || value === "") continue;
    out.add(value);
    for (const token of value.split(/[\s,;=/]+/)) if (token.length >= 12) out.add(token);
  }
  // Longest first, so a whole value is replaced before its parts.
  return [...out].sort((a, b) => b.length - a.length);
}

const PATTERNS: RegExp[] = [
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+\/=-]{8,}/gi,
  /("?(?:authorization|x-api-key|api[-_]?key|x-goog-api-key|access[-_]?token)"?\s*[:=]\s*"?)[^"\s,}]{6,}/gi,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bAKIA[0-9A-Z]{12,}/g,
];

export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  out = out.replace(PATTERNS[0]!, (_, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(PATTERNS[1]!, (_, prefix: string) => `${prefix}${REDACTED}`);
  out = out.replace(PATTERNS[2]!, REDACTED).replace(PATTERNS[3]!, REDACTED);
  return out;
}
