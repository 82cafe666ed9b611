/**
 * The end of every billed request: usage × catalog price → integer micro-EUR → one atomic
 * commit of debit + metadata + daily aggregates. Never carries a prompt or a completion.
 */
import type { Model } from "../catalog/schema.ts";
import type { Store } from "../state/store.ts";
import type { RequestRecord } from "../state/records.ts";
import { cacheSavingsMicroEur, costMicroEur } from "./cost.ts";
import type { UsageQuantities } from "../billed_quantities.ts";
import { isoTime } from "./iso_time.ts";
import { END_USER_MAX } from "../canonical/end_user.ts";
import { errorMessage, type Logger } from "../log.ts";
import type { QueueMark, UnsentTally } from "../limits/unsent_tally.ts";
import type { CreditHolds } from "../limits/credit_holds.ts";
import type { RequestTrace, Telemetry } from "../telemetry/telemetry.ts";

/** Its usage quantities (`promptTokens` …) are `billed_quantities.ts` `USAGE_FIELDS`. */
export interface SettleInput extends UsageQuantities {
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
  estimated: boolean;
  guardrail?: RequestRecord["guardrail"];
  /** The organization policy's reasons for a 403 refusal (the request reached no provider). */
  policyRefusal?: string;
  /** The error object's `code` the client got (rows with status ≥ 400). */
  errorCode?: string;
  /** When the request ended, if not now (a row written later than its refusal). */
  endedAt?: number;
  /** A row standing for several refusals (`refused_rows.ts`): how many. */
  refusedCount?: number;
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
    latency_ms: Math.max(0, (input.endedAt ?? now) - input.startedAt),
    prompt_tokens: input.promptTokens ?? null,
    completion_tokens: input.completionTokens ?? null,
    total_tokens: total ?? null,
    audio_seconds: input.audioSeconds ?? null,
    characters: input.characters ?? null,
    cost_micro_eur: cost,
    estimated: input.estimated,
    stream: input.stream,
    fallbacks: input.fallbacks,
    cached_tokens: input.cachedPromptTokens ?? null,
    cache_write_tokens: input.cacheWritePromptTokens ?? null,
    cache_write_1h_tokens: input.cacheWrite1hPromptTokens ?? null,
    cache_savings_micro_eur: input.model ? cacheSavingsMicroEur(input.model.pricing, input) : 0,
  };
  // Assigned, not spread: a spread in a literal this size made it several times dearer (the
  // request path builds two records a request). The stored order stays the same.
  if (input.guardrail && input.guardrail.verdict !== "pass") record.guardrail = input.guardrail;
  if (input.routingPolicy !== undefined) record.routing_policy = input.routingPolicy;
  if (input.policyRefusal !== undefined) record.policy_refusal = input.policyRefusal;
  if (input.errorCode !== undefined) record.error_code = input.errorCode;
  if (input.refusedCount !== undefined) record.refused_count = input.refusedCount;
  return record;
}

/**
 * A settle the store refused is written again after each of these waits (ms), then left to
 * admission recovery (its row stays open: the next start bills the estimate). A KV commit that
 * fails is not applied, so writing the same record again bills it once.
 */
export const SETTLE_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000, 600_000];

/** What a log line says of a settle: the request, its organization and cost, never content. */
function loggedSettle(record: RequestRecord) {
  return { request_id: record.id, org: record.org, cost_micro_eur: record.cost_micro_eur };
}

/** A settle written in its request's admission commit (`Settler.settleAdmitted`). */
export interface AdmittedSettle {
  record: RequestRecord;
  /** What the answer waits for (the commit; less while the store is taken for away). */
  answerable: Promise<void>;
  /** The answer goes out. */
  answered(): void;
  /** The client gets an error instead (the commit failed or did not come in time). */
  abandoned(): void;
}

export class Settler {
  #inFlight = new Set<Promise<unknown>>();
  /** Refused settles waiting for their next attempt (`#retry`), by timer. */
  #retries = new Map<
    ReturnType<typeof setTimeout>,
    { record: RequestRecord; markSent: QueueMark }
  >();
  /** After `stopRetries`: a refused settle is left to recovery at once. */
  #stopped = false;
  /** Told of every record once its debit is queued (spend alerts); never awaited. */
  #listeners: Array<(record: RequestRecord) => void> = [];

  constructor(
    private readonly store: Pick<Store, "settle" | "settleAdmitted">,
    private readonly log: Logger,
    /** Debits queued but not yet sent to the store, per organization (read by the gate). */
    private readonly unsentDebits: UnsentTally,
    private readonly telemetry?: Telemetry,
    /** Credit held by requests in flight: a request's hold goes when its debit is queued. */
    private readonly holds?: CreditHolds,
    private readonly retryDelaysMs: readonly number[] = SETTLE_RETRY_DELAYS_MS,
  ) {}

  /**
   * Settles once `input` is known (a usage estimate may still be running); a failure is logged
   * with the request id, never thrown.
   */
  settle(
    input: SettleInput | Promise<SettleInput>,
    trace?: RequestTrace,
    /** `counted`: the request is in the metrics already (a row written after its end). */
    options?: { counted: true },
  ): Promise<RequestRecord | undefined> {
    this.telemetry?.settling(trace);
    const counted = options?.counted === true;
    const done = Promise.resolve(input).then((i) => this.#write(i, trace, counted), (error) => {
      this.log.error("settle input failed", { reason: errorMessage(error) });
      return undefined;
    });
    this.#inFlight.add(done);
    done.finally(() => this.#inFlight.delete(done));
    return done;
  }

  /**
   * Settles `input` in its request's admission commit while that is still queued
   * (`MeteringStore.settleAdmitted`): one commit for the admission's rate increment and the
   * settle, which the answer waits for (`answerable`). Undefined, nothing done, when the
   * admission was sent already (settle as usual). The debit is queued and the hold released
   * here, as by `settle`; then exactly one of `answered` (the answer goes out: a write that
   * failed is retried as any settle's) or `abandoned` (the client gets an error instead: a
   * write that failed is not retried, and the caller writes the failure's row).
   */
  settleAdmitted(input: SettleInput, trace?: RequestTrace): AdmittedSettle | undefined {
    if (!this.store.settleAdmitted) return undefined;
    const record = buildRequestRecord(input);
    // `onSent` runs when a commit takes the write: never within this call.
    let markSent: QueueMark | undefined;
    const settle = this.store.settleAdmitted(record, () => markSent!());
    if (!settle) return undefined;
    this.telemetry?.settling(trace);
    // Queued before the hold goes: the gate never sees the request's credit in neither.
    const budget = this.holds?.budgetOf(record.id);
    const mark = markSent = this.#queueDebit(record, budget);
    this.holds?.release(record.id);
    let outcome: "answered" | "abandoned" | undefined;
    let failure: { error: unknown } | undefined;
    const failed = (error: unknown) => {
      if (outcome === "answered") this.#retry(record, 0, error, budget);
      else {
        this.log.error("settle in the admission's commit failed; answered as failed", {
          ...loggedSettle(record),
          reason: errorMessage(error),
        });
      }
      mark();
      mark.settled();
    };
    const write = () => settle.written;
    const done = (this.telemetry ? this.telemetry.settleSpan(trace, write) : write()).then(
      () => mark.settled(),
      (error) => {
        // Until the caller says whether the answer goes out, the debit keeps counting.
        if (outcome === undefined) failure = { error };
        else failed(error);
      },
    );
    this.#inFlight.add(done);
    done.finally(() => this.#inFlight.delete(done));
    return {
      record,
      answerable: settle.answerable,
      answered: () => {
        if (outcome !== undefined) return;
        outcome = "answered";
        this.telemetry?.settled(record, trace);
        this.#tell(record);
        if (failure) failed(failure.error);
      },
      abandoned: () => {
        if (outcome !== undefined) return;
        outcome = "abandoned";
        if (failure) failed(failure.error);
      },
    };
  }

  /**
   * Tells `listener` of every settled record, right after its debit is queued (before the
   * store write): synchronously, so a listener must only note it and work in the background.
   */
  onSettled(listener: (record: RequestRecord) => void): void {
    this.#listeners.push(listener);
  }

  /** Resolves when every settle started so far has been written (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /**
   * Shutdown, before the store closes: refused settles still waiting for a retry are left to
   * admission recovery (their rows stay open; the next start bills their estimates).
   */
  stopRetries(): void {
    this.#stopped = true;
    for (const [timer, { record, markSent }] of this.#retries) {
      clearTimeout(timer);
      // Never sent: the debit stops counting as pending (recovery bills the estimate).
      markSent();
      markSent.settled();
      this.log.error("settle failed; left to admission recovery", {
        ...loggedSettle(record),
        reason: "shutting down before its retry",
      });
    }
    this.#retries.clear();
  }

  #write(
    input: SettleInput,
    trace: RequestTrace | undefined,
    counted: boolean,
  ): Promise<RequestRecord> {
    const record = buildRequestRecord(input);
    if (!counted) this.telemetry?.settled(record, trace);
    // Queued before the hold goes: the gate never sees the request's credit in neither.
    const budget = this.holds?.budgetOf(record.id);
    const markSent = this.#queueDebit(record, budget);
    this.holds?.release(record.id);
    this.#tell(record);
    const write = () => this.store.settle(record, markSent);
    return (this.telemetry ? this.telemetry.settleSpan(trace, write) : write()).then(
      () => {
        markSent.settled();
        return record;
      },
      (error) => {
        // The retry counts the debit again before this attempt's stops counting.
        this.#retry(record, 0, error, budget);
        markSent();
        markSent.settled();
        return record;
      },
    );
  }

  #tell(record: RequestRecord): void {
    for (const listener of this.#listeners) {
      try {
        listener(record);
      } catch (error) {
        this.log.warn("settle listener failed", {
          request_id: record.id,
          reason: errorMessage(error),
        });
      }
    }
  }

  /**
   * Counts the debit in memory until the store has it: against the organization, and against
   * the key's budget (`budget`, its name) when the request was held against one.
   */
  #queueDebit(record: RequestRecord, budget: string | undefined): QueueMark {
    const now = Date.now();
    const org = this.unsentDebits.queue(record.org, record.cost_micro_eur, now, record.org);
    if (budget === undefined) return org;
    const key = this.unsentDebits.queue(budget, record.cost_micro_eur, now, budget);
    const mark = (() => {
      org();
      key();
    }) as QueueMark;
    mark.settled = () => {
      org.settled();
      key.settled();
    };
    return mark;
  }

  /**
   * Writes a refused settle again after the `attempt`th wait (a timer that keeps no process
   * alive). The debit counts in memory again meanwhile: the refused commit never landed.
   */
  #retry(record: RequestRecord, attempt: number, error: unknown, budget?: string): void {
    const delay = this.retryDelaysMs[attempt];
    const fields = {
      ...loggedSettle(record),
      attempts: attempt + 1,
      reason: errorMessage(error),
    };
    if (delay === undefined || this.#stopped) {
      this.log.error("settle failed; left to admission recovery", fields);
      return;
    }
    this.log.warn("settle failed; retrying", { ...fields, retry_in_ms: delay });
    const markSent = this.#queueDebit(record, budget);
    const timer = setTimeout(() => {
      this.#retries.delete(timer);
      // In flight like a first write: `idle()` (shutdown) waits for it.
      const done = this.store.settle(record, markSent).then(
        () => {
          markSent.settled();
          this.log.info("settle retried", { request_id: record.id, attempts: attempt + 2 });
        },
        (next) => {
          this.#retry(record, attempt + 1, next, budget);
          markSent();
          markSent.settled();
        },
      );
      this.#inFlight.add(done);
      done.finally(() => this.#inFlight.delete(done));
    }, delay);
    Deno.unrefTimer(timer);
    this.#retries.set(timer, { record, markSent });
  }
}
