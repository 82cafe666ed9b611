/**
 * One admission check of the gate: a key of an organization an operator suspended is refused
 * with 403 `organization_suspended`, before rate limits and credit. The state comes with the key
 * from the key lookup (`api_key_authenticator.ts`: read with the key, cached with it), so the check
 * costs no store read; a suspension or a restore reaches every instance within the key cache
 * time (`SOVRA_KEY_CACHE_SECONDS`, ≤ 30 s).
 */
import { GatewayError } from "../errors.ts";
import type { AuthenticatedKey } from "./api_key_authenticator.ts";

/** The refusal for a key of a suspended organization; undefined for any other key. */
export function suspendedOrganization(key: AuthenticatedKey): GatewayError | undefined {
  if (key.orgSuspended) {
    return new GatewayError(
      403,
      "organization_suspended",
      "This API key's organization is suspended by the operator of this gateway; its keys are refused until it is restored. Contact the operator.",
      // The spec's types have no permission type: the key is valid but refused, as a credential.
      { type: "authentication_error" },
    );
  }
  return undefined;
}
