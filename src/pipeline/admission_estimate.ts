/**
 * The most a request may cost, estimated before its first upstream call (the credit hold of
 * issue 17 item 4). Cheap and on the high side: a prompt is held at one token per character
 * (above any tokenizer's count for ordinary text), the completion at the request's
 * `max_tokens`, else the model's default cap, else 4,096 tokens (× `n`), priced at the
 * dearest model among the planned routes. No tokenizer runs here.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { Model } from "../catalog/schema.ts";
import { type Consumption, costMicroEur } from "../billing/cost.ts";
import type { AdmissionEstimate } from "../limits/admission.ts";
import type { Caller, PlannedRequest, RouteCandidate } from "../routing/route_plan.ts";

/** Completion tokens held when neither the request nor the model caps the answer. */
export const DEFAULT_HELD_COMPLETION_TOKENS = 4_096;

/** Holds the estimate for `request` (throws the 402), before the first upstream call. */
export function admitUpstream(
  caller: Caller,
  planned: PlannedRequest,
  candidates: readonly RouteCandidate<unknown>[],
  held?: Consumption,
): void {
  if (!caller.admission) return;
  caller.admission.admit(estimateOf(planned, candidates.map((c) => c.route.model), held));
}

export function estimateOf(
  planned: PlannedRequest,
  models: readonly Model[],
  held?: Consumption,
): AdmissionEstimate {
  let holdMicroEur = 0n;
  for (const model of new Set(models)) {
    const used = held ?? consumptionOf(planned, model);
    const cost = BigInt(costMicroEur(model.pricing, used));
    if (cost > holdMicroEur) holdMicroEur = cost;
  }
  return { holdMicroEur };
}

function consumptionOf(planned: PlannedRequest, model: Model): Consumption {
  switch (planned.endpoint) {
    case "chat":
    case "responses":
      return chatConsumption(planned.request, model);
    case "embeddings":
      return { promptTokens: inputLength(planned.request.body.input) };
    case "speech":
      return { characters: planned.request.input.length };
    case "transcriptions":
      // Held at 8 kbit/s of upload (the handler passes the measured seconds instead).
      return { audioSeconds: Math.ceil(planned.request.audio.byteLength / 1_000) };
  }
}

function chatConsumption(request: ChatRequest, model: Model): Consumption {
  let chars = request.tools ? JSON.stringify(request.tools).length : 0;
  for (const m of request.messages) {
    chars += m.content?.length ?? 0;
    if (m.role === "assistant") {
      for (const call of m.toolCalls ?? []) {
        chars += call.function.name.length + call.function.arguments.length;
      }
    }
  }
  let completion = request.maxTokens ?? model.limits?.default_max_tokens ??
    DEFAULT_HELD_COMPLETION_TOKENS;
  if (model.context_length !== undefined) completion = Math.min(completion, model.context_length);
  return {
    promptTokens: 3 + 3 * request.messages.length + chars,
    completionTokens: completion * Math.max(1, request.n ?? 1),
  };
}

/** Characters of a string input, or tokens of a token-array input, of any nesting. */
function inputLength(input: unknown): number {
  if (typeof input === "string") return input.length;
  if (typeof input === "number") return 1;
  if (Array.isArray(input)) {
    let sum = 0;
    for (const item of input) sum += inputLength(item);
    return sum;
  }
  return 0;
}
