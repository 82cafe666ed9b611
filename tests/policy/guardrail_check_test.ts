/** The guardrail step when the scanner itself fails: block fails closed, flag serves and says so. */
import assert from "node:assert/strict";
import { checkGuardrail } from "../../src/policy/guardrail_check.ts";
import { effectivePolicy } from "../../src/policy/effective_policy.ts";
import { newRequestNotes } from "../../src/policy/request_notes.ts";
import { DEFAULT_ORG_POLICY } from "../../src/state/policy_store.ts";
import { GatewayError } from "../../src/errors.ts";
import type { Guardrail } from "../../src/guardrail/scanner.ts";

const broken = {
  scan() {
    throw new Error("scanner bug");
  },
} as unknown as Guardrail;

const input = (mode: "flag" | "block") => ({
  endpoint: "chat",
  request: { messages: [{ role: "user", content: "hello" }] },
  caller: {
    policy: effectivePolicy({ ...DEFAULT_ORG_POLICY, guardrail: mode }, undefined),
    notes: newRequestNotes(),
  },
});

Deno.test("guardrail step — a scanner failure in block mode refuses with 503 guardrail_unavailable", () => {
  const i = input("block");
  assert.throws(
    () => checkGuardrail(broken, i),
    (e: unknown) =>
      e instanceof GatewayError && e.status === 503 && e.code === "guardrail_unavailable",
  );
  // The refusal's metadata record says the scan failed.
  assert.equal(i.caller.notes.guardrail?.verdict, "error");
  assert.equal(i.caller.notes.guardrail?.mode, "block");
});

Deno.test("guardrail step — a scanner failure in flag mode serves and records verdict error", () => {
  const i = input("flag");
  checkGuardrail(broken, i);
  assert.equal(i.caller.notes.guardrail?.verdict, "error");
  assert.equal(i.caller.notes.headers["x-sovra-guardrail"], "error");
});
