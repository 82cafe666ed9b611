import assert from "node:assert/strict";
import { costMicroEur } from "../../src/billing/cost.ts";

Deno.test("costMicroEur — exact integer math, total rounded up once", () => {
  const pricing = {
    prompt_micro_eur_per_million: 2_000_000,
    completion_micro_eur_per_million: 6_000_000,
  };
  // 1000 × 2 + 500 × 6 = 5000 micro-EUR exactly.
  assert.equal(costMicroEur(pricing, { promptTokens: 1000, completionTokens: 500 }), 5000);
  // 1 prompt token at 2 micro-EUR per million tokens → 0.000002 → rounds up to 1.
  assert.equal(costMicroEur({ prompt_micro_eur_per_million: 2 }, { promptTokens: 1 }), 1);
  // Parts are summed before rounding: 0.5 + 0.5 = 1, not 2.
  assert.equal(
    costMicroEur({
      prompt_micro_eur_per_million: 500_000,
      completion_micro_eur_per_million: 500_000,
    }, {
      promptTokens: 1,
      completionTokens: 1,
    }),
    1,
  );
  assert.equal(costMicroEur(pricing, {}), 0);
});

Deno.test("costMicroEur — audio per started second and characters", () => {
  // 3600 s at 360_000 micro-EUR per hour = 360_000; 3 s = 300.
  assert.equal(costMicroEur({ audio_micro_eur_per_hour: 360_000 }, { audioSeconds: 3 }), 300);
  // 1 s at 1000/hour = 0.2777… → 1.
  assert.equal(costMicroEur({ audio_micro_eur_per_hour: 1000 }, { audioSeconds: 1 }), 1);
  // 4 characters at 15_000_000 per million = 60.
  assert.equal(
    costMicroEur({ character_micro_eur_per_million: 15_000_000 }, { characters: 4 }),
    60,
  );
});

Deno.test("costMicroEur — large values stay exact (no float rounding)", () => {
  const cost = costMicroEur({ prompt_micro_eur_per_million: 123_456_789 }, {
    promptTokens: 987_654_321,
  });
  assert.equal(cost, Number((987_654_321n * 123_456_789n + 999_999n) / 1_000_000n));
});
