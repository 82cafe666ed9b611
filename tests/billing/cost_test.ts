import assert from "node:assert/strict";
import { cacheSavingsMicroEur, costMicroEur } from "../../src/billing/cost.ts";

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

/** The cost as computed with bigints only (the reference for the number path). */
function referenceCost(
  pricing: Record<string, number | undefined>,
  used: Record<string, number | undefined>,
): number {
  const big = (n: number | undefined) => n === undefined ? 0n : BigInt(Math.max(0, Math.trunc(n)));
  const numerator = big(used.promptTokens) * big(pricing.prompt_micro_eur_per_million) * 3_600n +
    big(used.completionTokens) * big(pricing.completion_micro_eur_per_million) * 3_600n +
    big(used.audioSeconds) * big(pricing.audio_micro_eur_per_hour) * 1_000_000n +
    big(used.characters) * big(pricing.character_micro_eur_per_million) * 3_600n;
  return Number((numerator + 3_600_000_000n - 1n) / 3_600_000_000n);
}

Deno.test("costMicroEur — the same as the bigint reference on random, boundary and huge inputs", () => {
  let seed = 11;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const below = (n: number) => Math.floor(random() * n);
  const edges = [
    0,
    1,
    3_599,
    3_600,
    999_999,
    1_000_000,
    3_600_000_000,
    2 ** 26,
    2 ** 40,
    2 ** 52 / 3_600,
    2 ** 52 / 3_600 + 1,
    2 ** 52 - 1,
    2 ** 52,
    2 ** 52 + 2,
    2 ** 53 - 1,
    2 ** 53,
    1e16,
    1e300,
    0.5,
    1.9999,
    -5,
    undefined,
  ];
  const value = () => {
    const r = random();
    if (r < 0.3) return edges[below(edges.length)];
    if (r < 0.6) return below(10 ** (1 + below(9)));
    // Near a multiple of the denominator once multiplied: ±1 around k × 10⁶ (× 3,600).
    return below(2 ** 20) * 1_000_000 + below(3) - 1;
  };
  const fields = ["prompt", "completion", "audio", "character"] as const;
  let compared = 0;
  for (let i = 0; i < 200_000; i++) {
    // Mostly one or two parts, as requests have them; sometimes all four.
    const parts = fields.filter(() => random() < 0.5);
    const pricing: Record<string, number | undefined> = {};
    const used: Record<string, number | undefined> = {};
    for (const part of parts) {
      if (part === "audio") {
        pricing.audio_micro_eur_per_hour = value();
        used.audioSeconds = value();
      } else {
        pricing[`${part}_micro_eur_per_million`] = value();
        used[part === "character" ? "characters" : `${part}Tokens`] = value();
      }
    }
    assert.equal(
      costMicroEur(pricing, used),
      referenceCost(pricing, used),
      JSON.stringify([pricing, used]),
    );
    compared++;
  }
  assert.equal(compared, 200_000);
  // At 10⁶ micro-EUR per million tokens the sum is tokens × 3.6e9: at most 2^52 up to
  // 1,250,999 tokens (numbers), from 1,251,000 on bigints.
  for (const tokens of [1_250_998, 1_250_999, 1_251_000, 1_251_001, 2_502_199]) {
    const pricing = { prompt_micro_eur_per_million: 1_000_000 };
    assert.equal(
      costMicroEur(pricing, { promptTokens: tokens }),
      referenceCost(pricing, { promptTokens: tokens }),
    );
  }
  // Where numbers alone round wrongly (products past 2^53), the cost is still the exact one.
  let wrongAsNumbers = 0;
  for (let price = 1; price < 400; price++) {
    for (let k = 0; k < 200; k++) {
      const tokens = 2 ** 52 - k * 7 - 1;
      const pricing = { prompt_micro_eur_per_million: price };
      const exact = referenceCost(pricing, { promptTokens: tokens });
      if (Math.ceil(tokens * price * 3_600 / 3_600_000_000) === exact) continue;
      wrongAsNumbers++;
      assert.equal(costMicroEur(pricing, { promptTokens: tokens }), exact, `${tokens} at ${price}`);
    }
  }
  assert.ok(wrongAsNumbers >= 3, `${wrongAsNumbers} cases where numbers alone are wrong`);
  for (const bad of [NaN, Infinity]) {
    assert.throws(
      () => costMicroEur({ prompt_micro_eur_per_million: 1 }, { promptTokens: bad }),
      RangeError,
    );
  }
});

const CLAUDE = {
  prompt_micro_eur_per_million: 3_036_000,
  completion_micro_eur_per_million: 15_180_000,
  cached_prompt_micro_eur_per_million: 303_600,
  cache_write_micro_eur_per_million: 3_795_000,
  cache_write_1h_micro_eur_per_million: 6_072_000,
};

/** Σ tokens × price per class with bigints, rounded up once: the bill of disjoint classes. */
function classBill(parts: Array<[number, number]>): number {
  let sum = 0n;
  for (const [tokens, price] of parts) sum += BigInt(tokens) * BigInt(price);
  return Number((sum + 999_999n) / 1_000_000n);
}

Deno.test("costMicroEur — each prompt class at its own price, summed once, never counted twice", () => {
  // 10,000 prompt tokens of which 6,000 read from cache, 3,000 written (1,000 of them for 1 h).
  const used = {
    promptTokens: 10_000,
    cachedPromptTokens: 6_000,
    cacheWritePromptTokens: 3_000,
    cacheWrite1hPromptTokens: 1_000,
    completionTokens: 500,
  };
  assert.equal(
    costMicroEur(CLAUDE, used),
    classBill([
      [1_000, CLAUDE.prompt_micro_eur_per_million],
      [6_000, CLAUDE.cached_prompt_micro_eur_per_million],
      [2_000, CLAUDE.cache_write_micro_eur_per_million],
      [1_000, CLAUDE.cache_write_1h_micro_eur_per_million],
      [500, CLAUDE.completion_micro_eur_per_million],
    ]),
  );
  // All cached: every prompt token at the cached price (and none again at the prompt price).
  assert.equal(
    costMicroEur(CLAUDE, { promptTokens: 1_000_000, cachedPromptTokens: 1_000_000 }),
    303_600,
  );
  // Reported classes beyond the prompt are capped by it: a read is part of the prompt.
  assert.equal(
    costMicroEur(CLAUDE, {
      promptTokens: 100,
      cachedPromptTokens: 250,
      cacheWritePromptTokens: 50,
    }),
    classBill([[100, CLAUDE.cached_prompt_micro_eur_per_million]]),
  );
});

Deno.test("costMicroEur — a cache class the catalog prices not is billed at the prompt price", () => {
  const plain = { prompt_micro_eur_per_million: 900_000, completion_micro_eur_per_million: 1 };
  // A provider that reports cached tokens (vLLM) without a discount in the catalog: no discount.
  assert.equal(
    costMicroEur(plain, { promptTokens: 2_000, cachedPromptTokens: 1_500 }),
    costMicroEur(plain, { promptTokens: 2_000 }),
  );
  // No 1-hour price: 1-hour writes at the 5-minute write price.
  const noHour = {
    prompt_micro_eur_per_million: 1_000_000,
    cache_write_micro_eur_per_million: 1_250_000,
  };
  assert.equal(
    costMicroEur(noHour, {
      promptTokens: 1_000,
      cacheWritePromptTokens: 1_000,
      cacheWrite1hPromptTokens: 400,
    }),
    1_250,
  );
});

Deno.test("costMicroEur — cache classes on the bigint path stay exact", () => {
  const used = {
    promptTokens: 2 ** 45,
    cachedPromptTokens: 2 ** 44 + 3,
    cacheWritePromptTokens: 2 ** 40 + 7,
    cacheWrite1hPromptTokens: 2 ** 30 + 1,
    completionTokens: 2 ** 41,
  };
  const uncached = 2 ** 45 - (2 ** 44 + 3) - (2 ** 40 + 7);
  assert.equal(
    costMicroEur(CLAUDE, used),
    classBill([
      [uncached, CLAUDE.prompt_micro_eur_per_million],
      [2 ** 44 + 3, CLAUDE.cached_prompt_micro_eur_per_million],
      [2 ** 40 + 7 - (2 ** 30 + 1), CLAUDE.cache_write_micro_eur_per_million],
      [2 ** 30 + 1, CLAUDE.cache_write_1h_micro_eur_per_million],
      [2 ** 41, CLAUDE.completion_micro_eur_per_million],
    ]),
  );
});

Deno.test("cacheSavingsMicroEur — list price less the bill: positive for reads, negative for writes", () => {
  const read = { promptTokens: 10_000, cachedPromptTokens: 9_000, completionTokens: 10 };
  const list = costMicroEur(CLAUDE, { promptTokens: 10_000, completionTokens: 10 });
  assert.equal(cacheSavingsMicroEur(CLAUDE, read), list - costMicroEur(CLAUDE, read));
  assert.ok(cacheSavingsMicroEur(CLAUDE, read) > 0);
  const write = { promptTokens: 10_000, cacheWritePromptTokens: 9_000, completionTokens: 10 };
  assert.ok(cacheSavingsMicroEur(CLAUDE, write) < 0);
  assert.equal(cacheSavingsMicroEur(CLAUDE, { promptTokens: 10_000 }), 0);
});
