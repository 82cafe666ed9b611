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

Deno.test("admission recovery — after its own renewals failed (an outage), no instance is judged dead until a whole lease of renewals succeeded", async () => {
  // The store away for a while: renewals fail, then succeed again. A lease of 60 ms, renewed
  // every 20 ms; a recovery pass would run every 60 ms.
  const events: Array<{ what: string; at: number }> = [];
  let away = false;
  const store: AdmissionStore = {
    renewLease: () => {
      events.push({ what: away ? "renew failed" : "renewed", at: Date.now() });
      return away ? Promise.reject(new Error("connect ECONNREFUSED")) : Promise.resolve();
    },
    recoverAdmissions: () => {
      events.push({ what: "recovering", at: Date.now() });
      return Promise.resolve(0);
    },
  };
  const recovery = startAdmissionRecovery(store, "inst_live", 60, createLogger("error"));
  try {
    await recovery.started;
    away = true;
    const waitFor = async (what: string, count: number) => {
      const deadline = Date.now() + 5_000;
      while (events.filter((e) => e.what === what).length < count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await waitFor("renew failed", 6);
    away = false;
    const back = events.filter((e) => e.what === "renewed").length;
    await waitFor("renewed", back + 8);
    const lastFailure = Math.max(
      ...events.filter((e) => e.what === "renew failed").map((e) => e.at),
    );
    const passes = events.filter((e) => e.what === "recovering" && e.at > lastFailure - 60);
    // Passes that ran: none within a lease of the last failed renewal (≥ one tick of slack).
    for (const pass of passes) {
      assert.ok(pass.at - lastFailure >= 60, `a recovery pass ${pass.at - lastFailure} ms after`);
    }
    assert.ok(
      events.some((e) => e.what === "recovering" && e.at > lastFailure),
      "recovery resumes once a lease of renewals succeeded",
    );
  } finally {
    await recovery.stop();
  }
});
