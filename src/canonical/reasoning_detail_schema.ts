/**
 * The one schema of a structured reasoning detail, wherever one comes from outside: a client
 * replaying `reasoning_details` (chat, responses) or an `openai`-dialect upstream answering
 * with them. Details that do not match are refused (client) or dropped (upstream), so nothing
 * malformed reaches a provider that verifies them.
 */
import { z } from "zod";
import type { ReasoningDetail } from "./chat.ts";

export const ReasoningDetailSchema = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("reasoning.text"),
    text: z.string().nullish(),
    signature: z.string().nullish(),
    id: z.string().nullish(),
    format: z.string().nullish(),
    index: z.number().int().optional(),
  }),
  z.looseObject({
    type: z.literal("reasoning.summary"),
    summary: z.string(),
    id: z.string().nullish(),
    format: z.string().nullish(),
    index: z.number().int().optional(),
  }),
  z.looseObject({
    type: z.literal("reasoning.encrypted"),
    data: z.string(),
    id: z.string().nullish(),
    format: z.string().nullish(),
    index: z.number().int().optional(),
  }),
]);

/** The valid details of an upstream's list; the rest are dropped. */
export function validReasoningDetails(details: readonly unknown[]): ReasoningDetail[] {
  const out: ReasoningDetail[] = [];
  for (const detail of details) {
    const parsed = ReasoningDetailSchema.safeParse(detail);
    if (parsed.success) out.push(parsed.data as ReasoningDetail);
  }
  return out;
}
