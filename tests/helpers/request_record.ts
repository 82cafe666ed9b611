/**
 * A settled chat request's record for store tests (`buildRequestRecord`, the settle's own
 * builder): 1 EUR per million prompt tokens, so its cost is its prompt tokens in micro-EUR.
 */
import { buildRequestRecord } from "../../src/billing/settle.ts";
import { timeOrderedId } from "../../src/util/ids.ts";
import type { RequestRecord } from "../../src/state/records.ts";

export function chatRecord(org: string, at: number, promptTokens = 5): RequestRecord {
  return buildRequestRecord({
    id: timeOrderedId("req_", at),
    startedAt: at,
    org,
    keyId: "key_a",
    user: undefined,
    endpoint: "chat",
    requestedModel: "acme/chat",
    model: {
      pricing: { prompt_micro_eur_per_million: 1_000_000, completion_micro_eur_per_million: 0 },
    } as never,
    servedModel: "acme/chat",
    provider: "sim-a",
    status: 200,
    stream: false,
    fallbacks: 0,
    promptTokens,
    completionTokens: 7,
    estimated: false,
  }, at + 3);
}
