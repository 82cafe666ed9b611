/**
 * A finish reason as every client format reports it (`unified`) beside the upstream's own
 * value (`raw`), so a reason no mapper knows is kept and visible instead of passing for a normal
 * `stop`. Each dialect maps its own values (`providers/<dialect>/map_finish_reason.ts`); the
 * canonical result and stream event carry the raw value only beside `other`, where it says
 * something the unified value does not. Anchor: the AI SDK's `{ unified, raw }` finish reasons.
 */
import type { FinishReason } from "./chat.ts";

export interface MappedFinishReason {
  /** `other` when the upstream's value is not one the dialect's mapper knows. */
  unified: FinishReason;
  /** The upstream's value as sent; absent when it sent none. */
  raw: string | undefined;
}

/** The fields of a `finish` stream event for a mapped reason. */
export function finishEventFields(
  mapped: MappedFinishReason,
): { reason: FinishReason; raw?: string } {
  return mapped.unified !== "other" || mapped.raw === undefined ? { reason: mapped.unified } : {
    reason: mapped.unified,
    raw: mapped.raw,
  };
}

/** The fields of a choice result for a mapped reason. */
export function finishResultFields(
  mapped: MappedFinishReason,
): { finishReason: FinishReason; rawFinishReason?: string } {
  return mapped.unified !== "other" || mapped.raw === undefined
    ? { finishReason: mapped.unified }
    : {
      finishReason: mapped.unified,
      rawFinishReason: mapped.raw,
    };
}
