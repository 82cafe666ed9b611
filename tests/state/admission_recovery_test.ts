/**
 * `startAdmissionRecovery` (src/state/admission_recovery.ts): lease renewals run on a chain of
 * their own, so a long recovery pass cannot let this live instance's lease lapse (another
 * instance would then settle its requests a second time: review item 5); the first renewal is
 * exposed as `leased` so the gateway commits its lease before it accepts requests.
 */
import assert from "node:assert/strict";
import { openTestStore } from "../helpers/kv.ts";
import { createLogger } from "../../src/log.ts";
import { startAdmissionRecovery } from "../../src/state/admission_recovery.ts";
import type { AdmissionStore } from "../../src/state/admission_store.ts";

Deno.test("admission recovery — a stuck recovery pass does not hold back lease renewals", async () => {
  await using store = await openTestStore();
  const events: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const slow: AdmissionStore = {
    renewLease: async (instance, expiresAt) => {
      await store.renewLease(instance, expiresAt);
      events.push("renewed");
    },
    recoverAdmissions: async (self, now) => {
      events.push("recovering");
      await held;
      return await store.recoverAdmissions(self, now);
    },
  };
  const recovery = startAdmissionRecovery(slow, "inst_live", 30, createLogger("error"));
  try {
    await recovery.leased;
    // The lease is committed before the first recovery pass starts.
    assert.equal(events[0], "renewed");
    // Liveness bound: the renewals go on while the first recovery pass is stuck.
    const deadline = Date.now() + 5_000;
    while (events.filter((e) => e === "renewed").length < 4 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(events.filter((e) => e === "renewed").length >= 4, events.join(","));
    assert.equal(events.filter((e) => e === "recovering").length, 1);
  } finally {
    release();
    await recovery.stop();
  }
});
