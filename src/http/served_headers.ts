/** The response headers every served request carries: request id, provider, dropped params. */
import type { ResolvedRoute } from "../catalog/resolved_route.ts";

export function servedHeaders(
  requestId: string,
  route: ResolvedRoute,
  dropped: readonly string[] = [],
): Record<string, string> {
  const headers: Record<string, string> = {
    "x-sovra-request-id": requestId,
    "x-sovra-provider": route.providerId,
  };
  if (dropped.length > 0) headers["x-sovra-dropped-params"] = dropped.map(headerSafe).join(",");
  return headers;
}

/**
 * A client's field name as it can travel in a header list: names outside visible ASCII (or
 * holding a comma) are percent-encoded, so no body field can break the answer.
 */
function headerSafe(name: string): string {
  if (/^[\x21-\x2b\x2d-\x7e]+$/.test(name)) return name;
  // UTF-8 bytes (a lone surrogate becomes U+FFFD, where encodeURIComponent would throw).
  let out = "";
  for (const byte of new TextEncoder().encode(name)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}
