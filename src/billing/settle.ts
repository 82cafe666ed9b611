/**
 * The end of every billed request: usage × catalog price → integer micro-EUR → one atomic
 * commit of debit + metadata + daily aggregates. Never carries a prompt or a completion.
 */
import type { Model } from "../catalog/schema.ts";
import type { Store } from "../state/store.ts";
import type { RequestRecord } from "../state/records.ts";
import { costMicroEur } from "./cost.ts";
import { isoTime } from "./iso_time.ts";
import { END_USER_MAX } from "../canonical/end_user.ts";
import { errorMessage, type Logger } from "../log.ts";
import type { UnsentTally } from "../limits/unsent_tally.ts";
import type { CreditHolds } from "../limits/credit_holds.ts";
import type { RequestTrace, Telemetry } from "../telemetry/telemetry.ts";

export interface SettleInput {
  id: string;
  startedAt: number;
  org: string;
  keyId: string;
  user: string | undefined;
  endpoint: RequestRecord["endpoint"];
  requestedModel: string;
  /** The routing policy that chose the model (`router/<id>` requests). */
  routingPolicy?: string;
  /** The catalog model that was served (its pricing is used). */
  model: Model | undefined;
  servedModel: string | undefined;
  provider: string | undefined;
  status: number;
  stream: boolean;
  fallbacks: number;
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
  totalTokens?: number | undefined;
  audioSeconds?: number | undefined;
  characters?: number | undefined;
  estimated: boolean;
  guardrail?: RequestRecord["guardrail"];
  /** The organization policy's reasons for a 403 refusal (the request reached no provider). */
  policyRefusal?: string;
}

export function buildRequestRecord(input: SettleInput, now = Date.now()): RequestRecord {
  const cost = input.model ? costMicroEur(input.model.pricing, input) : 0;
  const total = input.totalTokens ??
    (input.promptTokens !== undefined && input.completionTokens !== undefined
      ? input.promptTokens + input.completionTokens
      : undefined);
  const record: RequestRecord = {
    id: input.id,
    created: isoTime(input.startedAt),
    org: input.org,
    key_id: input.keyId,
    user: input.user === undefined ? null : input.user.slice(0, END_USER_MAX),
    endpoint: input.endpoint,
    requested_model: input.requestedModel,
    served_model: input.servedModel ?? null,
    provider: input.provider ?? null,
    status: input.status,
    latency_ms: Math.max(0, now - input.startedAt),
    prompt_tokens: input.promptTokens ?? null,
    completion_tokens: input.completionTokens ?? null,
    total_tokens: total ?? null,
    audio_seconds: input.audioSeconds ?? null,
    characters: input.characters ?? null,
    cost_micro_eur: cost,
    estimated: input.estimated,
    stream: input.stream,
    fallbacks: input.fallbacks,
  };
  // Assigned, not spread: a spread in a literal this size made it several times dearer (the
  // request path builds two records a request). The stored order stays the same.
  if (input.guardrail && input.guardrail.verdict !== "pass") record.guardrail = input.guardrail;
  if (input.routingPolicy !== undefined) record.routing_policy = input.routingPolicy;
  if (input.policyRefusal !== undefined) record.policy_refusal = input.policyRefusal;
  return record;
}

export class Settler {
  #inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly store: Pick<Store, "settle">,
    private readonly log: Logger,
    /** Debits queued but not yet sent to the store, per organization (read by the gate). */
    private readonly unsentDebits: UnsentTally,
    private readonly telemetry?: Telemetry,
    /** Credit held by requests in flight: a request's hold goes when its debit is queued. */
    private readonly holds?: CreditHolds,
  ) {}

  /**
   * Settles once `input` is known (a usage estimate may still be running); a failure is logged
   * with the request id, never thrown.
   */
  settle(
    input: SettleInput | Promise<SettleInput>,
    trace?: RequestTrace,
  ): Promise<RequestRecord | undefined> {
    this.telemetry?.settling(trace);
    const done = Promise.resolve(input).then((i) => this.#write(i, trace), (error) => {
      this.log.error("settle input failed", { reason: errorMessage(error) });
      return undefined;
    });
    this.#inFlight.add(done);
    done.finally(() => this.#inFlight.delete(done));
    return done;
  }

  /** Resolves when every settle started so far has been written (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  #write(input: SettleInput, trace: RequestTrace | undefined): Promise<RequestRecord> {
    const record = buildRequestRecord(input);
    this.telemetry?.settled(record, trace);
    const markSent = this.unsentDebits.queue(
      record.org,
      record.cost_micro_eur,
      Date.now(),
    );
    this.holds?.release(record.id);
    const write = () => this.store.settle(record, markSent);
    return (this.telemetry ? this.telemetry.settleSpan(trace, write) : write()).then(
      () => record,
      (error) => {
        markSent();
        this.log.error("settle failed", {
          request_id: record.id,
          org: record.org,
          cost_micro_eur: record.cost_micro_eur,
          reason: errorMessage(error),
        });
        return record;
      },
    );
  }
}
