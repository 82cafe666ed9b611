/**
 * A request's admission to the providers (issue 17 items 3 and 4), made by the gate and used
 * by the pipeline right before the first upstream call:
 *
 * - the request holds the most it may cost against its organization's balance (released when
 *   its debit is queued, or when it ends without one), so concurrent requests cannot overdraw
 *   further than one hold per instance;
 * - its rate-bucket increment, counted in memory at the gate, is written to the store here,
 *   together with its admission record (one commit: no extra write). The answer's content
 *   waits until that commit is durable (`durable`, overlapped with the upstream call; a
 *   stream's headers and role chunk do not wait), so a process killed
 *   after answering leaves at least the admission record, settled from its estimate later.
 *   A request that never calls out writes its plain increment when it ends (`countOnce`).
 */
import type { GateState } from "./gate_state.ts";
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
  admit(estimate: AdmissionEstimate): void;
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
}

export interface AdmissionContext {
  gate: GateState;
  store: Pick<MeteringStore, "countRequest">;
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
  /** Builds the 402 (and counts the refusal). */
  refusal: () => Error;
  /** A failed store write (logged; the request goes on). */
  onWriteError: (error: unknown) => void;
}

export class RequestAdmission implements UpstreamAdmission {
  #written: Promise<void> | undefined;
  #durable = false;
  #held = false;

  constructor(private readonly ctx: AdmissionContext) {}

  admit(estimate: AdmissionEstimate): void {
    if (!this.#held) this.hold(estimate.holdMicroEur);
    const { instance } = this.ctx;
    this.countOnce(estimate.recovery ? { instance, record: estimate.recovery } : undefined);
  }

  hold(holdMicroEur: bigint): void {
    const { gate, keyId, org, requestId } = this.ctx;
    if (this.ctx.billed && !gate.tryHold(keyId, org, requestId, holdMicroEur)) {
      throw this.ctx.refusal();
    }
    this.#held = true;
  }

  durable(): Promise<void> {
    return this.#written ?? Promise.resolve();
  }

  isDurable(): boolean {
    return this.#written === undefined || this.#durable;
  }

  /** Writes the rate increment (with the admission record, if any) unless already written. */
  countOnce(admission?: { instance: string; record: RequestRecord }): void {
    if (this.#written) return;
    const { store, keyId, minute, markSent } = this.ctx;
    this.#written = store.countRequest(keyId, minute, markSent, admission).catch((error) => {
      markSent();
      this.ctx.onWriteError(error);
    }).then(() => {
      this.#durable = true;
    });
  }

  /** The request ended without a settle (refused, failed before any provider): its hold goes. */
  end(): void {
    this.ctx.gate.holds.release(this.ctx.requestId);
  }
}
