/**
 * Whether a request thinks: the client's `reasoning` against the catalog model's `reasoning`
 * block. Thinking is on when the client asked for it (not effort `none`, not `enabled: false`)
 * on a model that reasons, or always on a model whose reasoning is mandatory.
 */
import type { ReasoningEffort, ReasoningRequest } from "./chat.ts";

/** The part of a catalog model's `reasoning` block that decides it. */
export interface CatalogReasoning {
  mandatory: boolean;
  default_effort?: ReasoningEffort | undefined;
}

/** The reasoning the gateway will ask for, or undefined when thinking stays off. */
export function wantedReasoning(
  catalog: CatalogReasoning | undefined,
  asked: ReasoningRequest | undefined,
): ReasoningRequest | undefined {
  if (catalog === undefined) return undefined;
  const mandatory = catalog.mandatory ? { effort: catalog.default_effort ?? "medium" } : undefined;
  if (asked === undefined) return mandatory;
  if (asked.effort === "none" || asked.enabled === false) return mandatory;
  return asked;
}
