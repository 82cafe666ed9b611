import assert from "node:assert/strict";
import { metricsOf, qualityCurve } from "../../scripts/router/metrics.ts";
import { dataPresent, loadAll } from "../../scripts/router/data.ts";
import { fit } from "../../scripts/router/fit.ts";
import { RECIPE } from "../../scripts/router/recipe.ts";
import { shippedWeights } from "../../src/smart_router/classifier.ts";

const items = [
  { prompt: "a", strong: 1, weak: 0, group: "g" },
  { prompt: "b", strong: 1, weak: 1, group: "g" },
  { prompt: "c", strong: 0, weak: 0, group: "g" },
  { prompt: "d", strong: 1, weak: 0, group: "g" },
];

Deno.test("eval metrics — a constant score is exactly random (APGR 0.5, CPT(p) = p)", () => {
  const m = metricsOf(qualityCurve(items, [0, 0, 0, 0]));
  assert.equal(m.apgr, 0.5);
  assert.equal(m.cpt50, 0.5);
  assert.equal(m.cpt80, 0.8);
  assert.equal(m.strongQuality, 0.75);
  assert.equal(m.weakQuality, 0.25);
});

Deno.test("eval metrics — the oracle order reaches the whole gap with half the strong calls", () => {
  const m = metricsOf(qualityCurve(items, [3, 1, 0, 2]));
  // Curve: 0 → 0.25, ¼ → 0.5, ½ → 0.75 (whole gap), then flat.
  assert.ok(Math.abs(m.cpt80 - 0.4) < 1e-12); // 0.65 reached at ¼ + ¼·(0.15/0.25)
  assert.ok(Math.abs(m.strongCallsAt95 - 0.4625) < 1e-12); // 95 % of 0.75 = 0.7125
  assert.equal(m.apgr, 0.75); // PGR 0, ½, 1, 1, 1 at shares 0, ¼, ½, ¾, 1
  const worst = metricsOf(qualityCurve(items, [0, 3, 2, 1]));
  assert.ok(worst.apgr < 0.5);
});

const present = await dataPresent();

Deno.test({
  name: "eval-router — the committed classifier weights are what train-router makes from the data",
  ignore: !present,
  fn: async () => {
    const w = fit(await loadAll(), RECIPE);
    assert.deepEqual(w.dense, shippedWeights.dense);
    assert.equal(w.bias, shippedWeights.bias);
    assert.deepEqual(w.quantiles, shippedWeights.quantiles);
    assert.deepEqual(w.no_signal_quantiles, shippedWeights.no_signal_quantiles);
  },
});

Deno.test({
  name:
    "eval-router — prints, last, one JSON object with apgr and strong_calls_at_95 per held-out set",
  ignore: !present,
  fn: async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "eval-router"],
      env: { SOVRA_EVAL_RESAMPLES: "30" },
      cwd: new URL("../..", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    const report = JSON.parse(lines[lines.length - 1]!);
    for (const set of ["mmlu", "gsm8k", "mt_bench"]) {
      assert.equal(typeof report[set].apgr, "number");
      assert.equal(typeof report[set].strong_calls_at_95, "number");
      // The gate every held-out set must pass: never below random.
      assert.ok(report[set].apgr >= 0.5, `${set} APGR ${report[set].apgr}`);
      const rows = report[set].dial.rows;
      assert.equal(rows.length, 10);
      for (let k = 1; k < 10; k++) {
        const share = (r: { share: Record<string, number> }) =>
          r.share["mistral/mistral-large-2512"]!;
        assert.ok(share(rows[k]) >= share(rows[k - 1]), `${set}: the dial is monotone`);
        assert.ok(
          rows[k].cost_per_1000_requests_micro_eur >= rows[k - 1].cost_per_1000_requests_micro_eur,
        );
      }
      assert.equal(rows[0].share["mistral/mistral-large-2512"], 0);
      assert.equal(rows[9].share["mistral/mistral-large-2512"], 1);
    }
    assert.equal(report.gates.mmlu_not_below_random, true);
    // GSM8K carries the in-distribution upper bound beside its baselines.
    const bound = report.gsm8k.baselines.in_distribution_fit;
    assert.ok(bound.strong_calls_at_95 > 0 && bound.strong_calls_at_95 <= 1);
  },
});
