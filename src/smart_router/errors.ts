/** The router's client errors. */
import { GatewayError } from "../errors.ts";

/**
 * No pool model can serve this request. Tools on a pool without tool support is rule 6's
 * `tools_not_supported`; anything else is `invalid_request`; the message names each model
 * and why (no payload).
 */
export function noEligibleModel(
  policyId: string,
  excluded: readonly { id: string; reason: string }[],
): GatewayError {
  const why = excluded.map((e) => `${e.id}: ${e.reason}`).join("; ");
  const onlyTools = excluded.length > 0 && excluded.every((e) => e.reason === "no tools");
  return new GatewayError(
    400,
    onlyTools ? "tools_not_supported" : "invalid_request",
    `No model of routing policy '${policyId}' can serve this request (${why || "empty pool"}).`,
    onlyTools ? { param: "tools" } : {},
  );
}
