import assert from "node:assert/strict";
import { RouteMetrics } from "../../src/routing/route_metrics.ts";

Deno.test("RouteMetrics — moving averages of latency, TTFT, tokens/s and error rate per route", () => {
  const metrics = new RouteMetrics();
  const key = RouteMetrics.key("mistral", "mistral-large-2411");
  metrics.recordSuccess(key, { latencyMs: 1000, ttftMs: 200, completionTokens: 80 });
  let m = metrics.snapshot(key)!;
  assert.equal(m.latencyMs, 1000);
  assert.equal(m.ttftMs, 200);
  assert.equal(m.tokensPerSecond, 100); // 80 tokens over 800 ms of generation
  assert.equal(m.errorRate, 0);
  metrics.recordFailure(key);
  m = metrics.snapshot(key)!;
  assert.ok(Math.abs(m.errorRate - 0.2) < 1e-9, `error rate ${m.errorRate}`);
  metrics.recordSuccess(key, { latencyMs: 2000 });
  m = metrics.snapshot(key)!;
  assert.equal(m.latencyMs, 1200); // 1000 + 0.2 × (2000 − 1000)
  assert.equal(m.requests, 3);
  assert.equal(metrics.snapshot(RouteMetrics.key("other", "x")), undefined);
  assert.deepEqual(Object.keys(metrics.all()), [key]);
});
