/**
 * A request's admission to the providers (issue 17 items 3 and 4), made by the gate and used
 * by the pipeline right before the first upstream call: the request holds the most it may cost
 * against its organization's balance (released when its debit is queued, or when it ends
 * without one), so concurrent requests cannot overdraw further than one hold per instance.
 */
import type { GateState } from "./gate_state.ts";

/** What a request may cost at most, estimated before any upstream call. */
export interface AdmissionEstimate {
  holdMicroEur: bigint;
}

export interface UpstreamAdmission {
  /**
   * Holds the estimate; throws the 402 (synchronously, before any upstream call) when the
   * credit left after the holds of the organization's other requests in flight is used up.
   */
  admit(estimate: AdmissionEstimate): void;
}

export class RequestAdmission implements UpstreamAdmission {
  constructor(
    private readonly gate: GateState,
    private readonly requestId: string,
    private readonly keyId: string,
    private readonly org: string,
    /** Unbilled endpoints hold nothing. */
    private readonly billed: boolean,
    /** Builds the 402 (and counts the refusal). */
    private readonly refusal: () => Error,
  ) {}

  admit(estimate: AdmissionEstimate): void {
    if (!this.billed) return;
    const held = this.gate.tryHold(this.keyId, this.org, this.requestId, estimate.holdMicroEur);
    if (!held) throw this.refusal();
  }

  /** The request ended without a settle (refused, failed before any provider): its hold goes. */
  end(): void {
    this.gate.holds.release(this.requestId);
  }
}
