/**
 * The most a request may cost, estimated before its first upstream call (the credit hold). Cheap and on the high side: a prompt is held at one token per character
 * (above any tokenizer's count for ordinary text), the completion at the request's
 * `max_tokens`, else the model's default cap, else 4,096 tokens (× `n`), priced at the
 * dearest model among the planned routes. No tokenizer runs here.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { Model } from "../catalog/schema.ts";
import { costMicroEur, type PricedUsage } from "../billing/cost.ts";
import { buildRequestRecord, type SettleInput } from "../billing/settle.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { RequestRecord } from "../state/records.ts";
import type { AdmissionEstimate } from "../limits/admission.ts";
import type { Caller, PlannedRequest, RouteCandidate } from "../routing/route_plan.ts";

/** Completion tokens held when neither the request nor the model caps the answer. */
export const DEFAULT_HELD_COMPLETION_TOKENS = 4_096;

/** What the metadata of the request names, for the record a crash would leave. */
export interface AdmittedRequest {
  requestedModel: string;
  user: string | undefined;
  stream: boolean;
  routingPolicy?: string | undefined;
}

/**
 * Holds the estimate (throws the 402) and writes the admission record, before the first
 * upstream call; the answer must wait for `caller.admission.durable()`. `expectedAnswerMs`:
 * when the first route usually answers, if known (the record may then ride a paced commit).
 * `settlesInCommit`: a whole answer whose settle may take the record's place in its commit
 * (`admission_wait.ts` `settlesInAdmission`).
 */
export function admitUpstream(
  caller: Caller,
  planned: PlannedRequest,
  candidates: readonly RouteCandidate<unknown>[],
  admitted: AdmittedRequest,
  held?: PricedUsage,
  expectedAnswerMs?: number,
  settlesInCommit?: boolean,
): void {
  if (!caller.admission) return;
  const models = candidates.map((c) => c.route.model);
  const chars = promptChars(planned);
  const estimate = estimateOf(planned, models, held, chars);
  const first = candidates[0]?.route;
  caller.admission.admit(
    {
      ...estimate,
      ...(first ? { recovery: recoveryRecord(caller, planned, first, admitted, held, chars) } : {}),
    },
    expectedAnswerMs,
    settlesInCommit,
  );
}

/**
 * Holds the estimate only (throws the 402), for a request that waits before its admission (the
 * guardrail's remote check): `admitUpstream` then keeps this hold and writes the record.
 */
export function holdUpstream(
  caller: Caller,
  planned: PlannedRequest,
  candidates: readonly RouteCandidate<unknown>[],
): void {
  if (!caller.admission) return;
  const models = candidates.map((c) => c.route.model);
  caller.admission.hold(estimateOf(planned, models).holdMicroEur);
}

/**
 * The characters of a chat prompt (messages, tool calls and tool definitions), counted once per
 * request however many models are priced: the tools' JSON is the costly part.
 */
function promptChars(planned: PlannedRequest): () => number {
  let chars: number | undefined;
  return () =>
    chars ??= planned.endpoint === "chat" || planned.endpoint === "responses"
      ? chatChars(planned.request)
      : 0;
}

export function estimateOf(
  planned: PlannedRequest,
  models: readonly Model[],
  held?: PricedUsage,
  chars = promptChars(planned),
): AdmissionEstimate {
  let holdMicroEur = 0n;
  for (const model of new Set(models)) {
    const used = held ?? consumptionOf(planned, model, chars);
    const cost = BigInt(costMicroEur(model.pricing, used));
    if (cost > holdMicroEur) holdMicroEur = cost;
  }
  return { holdMicroEur };
}

/**
 * The request's record should its process die before settling it: the first route, usage
 * estimated from the request alone (the prompt at 4 characters a token, no completion: it is
 * unknown), status 0 (unknown), flagged `estimated` and `recovered`.
 */
function recoveryRecord(
  caller: Caller,
  planned: PlannedRequest,
  route: ResolvedRoute,
  admitted: AdmittedRequest,
  held: PricedUsage | undefined,
  chars: () => number,
): RequestRecord {
  const used = held ?? typicalConsumption(planned, chars);
  // Built once per request before its upstream call: no spreads (copying a record's twenty
  // properties into a new object cost more than building it).
  const input: SettleInput = {
    id: caller.requestId,
    startedAt: caller.startedAt,
    org: caller.org,
    keyId: caller.keyId,
    user: admitted.user,
    endpoint: planned.endpoint,
    requestedModel: admitted.requestedModel,
    model: route.model,
    servedModel: route.model.id,
    provider: route.providerId,
    status: 0,
    stream: admitted.stream,
    fallbacks: 0,
    promptTokens: used.promptTokens,
    totalTokens: used.promptTokens,
    audioSeconds: used.audioSeconds,
    characters: used.characters,
    estimated: true,
  };
  if (admitted.routingPolicy) input.routingPolicy = admitted.routingPolicy;
  if (caller.notes?.guardrail) input.guardrail = caller.notes.guardrail;
  const record = buildRequestRecord(input);
  record.recovered = true;
  return record;
}

/**
 * A stream's admission record at a checkpoint: the record written at admission, served by the
 * route that answers, with the completion tokens generated so far and their cost (still status
 * 0, estimated, `recovered`: billed only if the process dies before the settle).
 */
export function progressRecord(
  base: RequestRecord,
  served: { route: ResolvedRoute; fallbacks: number; routed: boolean },
  completionTokens: number,
  now = Date.now(),
): RequestRecord {
  const promptTokens = base.prompt_tokens ?? 0;
  const record: RequestRecord = {
    ...base,
    served_model: served.routed ? served.route.model.id : served.route.route.upstream_model,
    provider: served.route.providerId,
    fallbacks: served.fallbacks,
    latency_ms: Math.max(0, now - Date.parse(base.created)),
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    cost_micro_eur: costMicroEur(served.route.model.pricing, { promptTokens, completionTokens }),
  };
  return record;
}

function typicalConsumption(planned: PlannedRequest, chars: () => number): PricedUsage {
  switch (planned.endpoint) {
    case "chat":
    case "responses": {
      const { messages } = planned.request;
      return { promptTokens: 3 + 3 * messages.length + Math.ceil(chars() / 4) };
    }
    case "embeddings":
      return { promptTokens: Math.ceil(inputLength(planned.request.body.input) / 4) };
    default:
      return consumptionOf(planned, undefined, chars);
  }
}

function consumptionOf(
  planned: PlannedRequest,
  model: Model | undefined,
  chars: () => number,
): PricedUsage {
  switch (planned.endpoint) {
    case "chat":
    case "responses":
      return chatConsumption(planned.request, model, chars());
    case "embeddings":
      return { promptTokens: inputLength(planned.request.body.input) };
    case "speech":
      return { characters: planned.request.input.length };
    case "transcriptions":
      // Held at 8 kbit/s of upload (the handler passes the measured seconds instead).
      return { audioSeconds: Math.ceil(planned.request.audio.byteLength / 1_000) };
  }
}

function chatConsumption(
  request: ChatRequest,
  model: Model | undefined,
  chars: number,
): PricedUsage {
  let completion = request.maxTokens ?? model?.limits?.default_max_tokens ??
    DEFAULT_HELD_COMPLETION_TOKENS;
  if (model?.context_length !== undefined) completion = Math.min(completion, model.context_length);
  return {
    promptTokens: 3 + 3 * request.messages.length + chars,
    completionTokens: completion * Math.max(1, request.n ?? 1),
  };
}

function chatChars(request: ChatRequest): number {
  let chars = request.tools ? JSON.stringify(request.tools).length : 0;
  for (const m of request.messages) {
    chars += m.content?.length ?? 0;
    if (m.role === "assistant") {
      for (const call of m.toolCalls ?? []) {
        chars += call.function.name.length + call.function.arguments.length;
      }
    }
  }
  return chars;
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
