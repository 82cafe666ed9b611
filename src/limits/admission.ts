/**
 * A request's admission to the providers, made by the gate and used
 * by the pipeline right before the first upstream call:
 *
 * - the request holds the most it may cost against its organization's balance (released when
 *   its debit is queued, or when it ends without one), so concurrent requests cannot overdraw
 *   further than one hold per instance;
 * - its rate-bucket increment, counted in memory at the gate, is written to the store here,
 *   together with its admission record (one commit: no extra write). The answer's content
 *   waits until that commit is durable (`durable`, overlapped with the upstream call; a
 *   stream's headers and role chunk do not wait), so a process killed
 *   after answering leaves at least the admission record, settled from its estimate later
 *   (or the settle that took the record's place, below).
 *   The commit starts at once, unless the route is known to answer later than `deferAfterMs`
 *   (three commit intervals): then the record rides with the next paced commit, shared with
 *   every request admitted meanwhile, and is durable long before the answer; an answer that
 *   comes first anyway calls `hurry`, which starts that commit at once. So a slow provider
 *   (every LLM) costs no commit of its own per request, and a fast one no latency.
 *   A whole (non-stream) answer's record is deferred so whatever its route: an answer that
 *   comes before a commit took the record brings its settle, which takes the record's place
 *   in that same commit (one commit for the request, `MeteringStore.settleAdmitted`); one that
 *   comes later finds the record on its way or durable, as a slow route's.
 *   A request that never calls out writes its plain increment when it ends (`countOnce`).
 */
import type { GateState, KeyBudget } from "./gate_state.ts";
import type { HoldRefusal } from "./credit_holds.ts";
import type { MeteringStore } from "../state/store.ts";
import type { RequestRecord } from "../state/records.ts";

/** What a request may cost at most, estimated before any upstream call. */
export interface AdmissionEstimate {
  holdMicroEur: bigint;
  /** The record to bill if this process dies before settling (estimated, `recovered`). */
  recovery?: RequestRecord;
}

export interface UpstreamAdmission {
  /**
   * Holds the estimate and writes the admission record; throws the 402 (synchronously, before
   * any upstream call) when the credit left after the holds of the organization's other
   * requests in flight is used up.
   */
  admit(estimate: AdmissionEstimate, expectedAnswerMs?: number, settlesInCommit?: boolean): void;
  /**
   * Holds the estimate ahead of `admit`, with the same check and 402, for a step that waits
   * between planning and admission (the guardrail's remote classifier call): a request the credit
   * check refuses never reaches it. `admit` then keeps this hold without checking again.
   */
  hold(holdMicroEur: bigint): void;
  /** Resolves once the admission record is durable (never rejects: a store failure is logged). */
  durable(): Promise<void>;
  /** True once `durable()` has resolved (a waiter then needs no timer). */
  isDurable(): boolean;
  /** Someone waits for `durable()` now: a deferred admission commits without the interval. */
  hurry(): void;
  /**
   * True while its record, deferred, waits for a commit to take it: a settle may still take
   * its place (`MeteringStore.settleAdmitted`, which has the last word).
   */
  unsent(): boolean;
  /** The record written with the admission (what a crash would bill), if any. */
  readonly recovery: RequestRecord | undefined;
  /**
   * Replaces the admission record by a later estimate (a long stream's completion so far),
   * written with the next paced commit; a failure leaves the earlier one (logged).
   */
  checkpoint(record: RequestRecord): void;
}

export interface AdmissionContext {
  gate: GateState;
  store: Pick<MeteringStore, "countRequest" | "hurryWrites" | "checkpointAdmission">;
  /**
   * An admission whose route usually answers (or streams its first token) after this many ms
   * does not force a commit of its own (`Infinity`: never deferred).
   */
  deferAfterMs: number;
  /** This process, as named in its admission records and lease. */
  instance: string;
  requestId: string;
  keyId: string;
  org: string;
  minute: number;
  /** Unbilled endpoints hold nothing. */
  billed: boolean;
  /** Marks the in-memory rate increment as written (the gate queued it). */
  markSent: () => void;
  /** Its write settled (`QueueMark.settled`: the other isolates stop counting it as pending). */
  markSettled?: () => void;
  /** The key's budget in the request's period, if it has one (held against as the balance). */
  budget?: KeyBudget | undefined;
  /** Builds the 402 of what refused (and counts the refusal). */
  refusal: (refused: HoldRefusal) => Error;
  /** A failed store write (logged; the request goes on). */
  onWriteError: (error: unknown) => void;
}

export class RequestAdmission implements UpstreamAdmission {
  #written: Promise<void> | undefined;
  #durable = false;
  #held = false;
  #deferred = false;
  #recovery: RequestRecord | undefined;

  constructor(private readonly ctx: AdmissionContext) {}

  /**
   * `expectedAnswerMs`: when the first route usually answers (stream: its first token), from
   * the live route metrics; unknown means at once. `settlesInCommit`: a whole answer, whose
   * settle takes the record's place in its commit when the answer comes before a commit took
   * the record (`MeteringStore.settleAdmitted`): the record never forces a commit of its own.
   */
  admit(estimate: AdmissionEstimate, expectedAnswerMs?: number, settlesInCommit = false): void {
    if (!this.#held) this.hold(estimate.holdMicroEur);
    const { instance, deferAfterMs } = this.ctx;
    const deferrable = settlesInCommit ||
      (expectedAnswerMs !== undefined && expectedAnswerMs >= deferAfterMs);
    this.#recovery = estimate.recovery;
    this.countOnce(
      estimate.recovery ? { instance, record: estimate.recovery } : undefined,
      deferrable,
    );
  }

  hold(holdMicroEur: bigint): void {
    const { gate, keyId, org, requestId } = this.ctx;
    if (this.ctx.billed) {
      const refused = gate.tryHoldWithin(keyId, org, requestId, holdMicroEur, this.ctx.budget);
      if (refused) throw this.ctx.refusal(refused);
    }
    this.#held = true;
  }

  durable(): Promise<void> {
    return this.#written ?? Promise.resolve();
  }

  isDurable(): boolean {
    return this.#written === undefined || this.#durable;
  }

  hurry(): void {
    if (this.#deferred && !this.#durable) {
      this.#deferred = false;
      this.ctx.store.hurryWrites();
    }
  }

  unsent(): boolean {
    return this.#deferred;
  }

  get recovery(): RequestRecord | undefined {
    return this.#recovery;
  }

  checkpoint(record: RequestRecord): void {
    if (!this.#recovery || !this.#written) return;
    const { store, instance } = this.ctx;
    // After the admission's own write: a checkpoint never lands before the record it replaces.
    void this.#written.then(() => store.checkpointAdmission({ instance, record })).catch(
      (error) => this.ctx.onWriteError(error),
    );
  }

  /** Writes the rate increment (with the admission record, if any) unless already written. */
  countOnce(admission?: { instance: string; record: RequestRecord }, deferrable = false): void {
    if (this.#written) return;
    const { store, keyId, minute, markSent } = this.ctx;
    this.#deferred = admission !== undefined && deferrable;
    // Once the commit carrying a deferred write is on its way, there is nothing left to hurry.
    const onSent = this.#deferred
      ? () => {
        this.#deferred = false;
        markSent();
      }
      : markSent;
    const write = store.countRequest(keyId, minute, onSent, admission, this.#deferred);
    this.#written = write.catch((error) => {
      markSent();
      this.ctx.onWriteError(error);
    }).then(() => {
      this.ctx.markSettled?.();
      this.#durable = true;
    });
  }

  /** The request ended without a settle (refused, failed before any provider): its hold goes. */
  end(): void {
    this.ctx.gate.holds.release(this.ctx.requestId);
  }
}
