/**
 * A policy refusal is counted once in `sovra_requests_total`: the refusal's zero-cost record
 * (settled like every record) counts it, so the gate must not count it again as a request that
 * ended without a settle.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startPolicyHarness } from "./policy_support.ts";

function requestsTotal(exposition: string): number {
  let sum = 0;
  for (const line of exposition.split("\n")) {
    const match = /^sovra_requests_total(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (match) sum += Number(match[1]);
  }
  return sum;
}

Deno.test("policy refusal — a 403 policy_forbids_model is one request in sovra_requests_total", async () => {
  await using h = await startPolicyHarness([
    chatModel("acme/claude", [], {
      sovereignty: "pragmatic",
      routes: [{ provider: "prag", upstream_model: "prag-claude" }],
    }),
  ]);
  await h.setPolicy({ sovereignty: "strict_only" });
  const response = await h.post("/v1/chat/completions", {
    model: "acme/claude",
    messages: [{ role: "user", content: "Hi" }],
  });
  assert.equal(response.status, 403);
  await response.body?.cancel();
  await h.flushed();
  const exposition = await h.gateway.deps.telemetry.exposition();
  assert.equal(
    requestsTotal(exposition),
    1,
    exposition.split("\n").filter((l) => l.startsWith("sovra_requests_total")).join("\n"),
  );
});
