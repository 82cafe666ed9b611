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
  if (dropped.length > 0) headers["x-sovra-dropped-params"] = dropped.join(",");
  return headers;
}
