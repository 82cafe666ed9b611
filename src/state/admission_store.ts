/**
 * Admission records and instance leases. An admission record is written in
 * the same commit as the request's rate-bucket increment, before its first upstream call
 * (`MeteringStore.countRequest`), and deleted in the same commit as its settle. Each process
 * renews a lease; the admissions of a process whose lease ran out (killed, crashed) are settled
 * from their estimates by any live process, once.
 */
export interface AdmissionStore {
  /** Extends this instance's lease to `expiresAt` (epoch ms). */
  renewLease(instance: string, expiresAt: number): Promise<void>;
  /**
   * Settles, at most once each, the open admissions of every instance but `self` whose lease
   * ended before `now` (or that has none); resolves with how many were settled.
   */
  recoverAdmissions(self: string, now: number): Promise<number>;
}
