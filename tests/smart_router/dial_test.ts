import assert from "node:assert/strict";
import { dialPosition, neededQuality, tierFor } from "../../src/smart_router/dial.ts";

const grid = Array.from({ length: 21 }, (_, i) => i / 20);

Deno.test("dial — T=1 is always the bottom, T=10 always the top", () => {
  for (const d of grid) {
    assert.equal(dialPosition(d, 1), 0);
    assert.equal(dialPosition(d, 10), 1);
  }
});

Deno.test("dial — monotone in difficulty and in threshold", () => {
  for (let t = 1; t <= 10; t++) {
    for (let k = 1; k < grid.length; k++) {
      assert.ok(dialPosition(grid[k]!, t) >= dialPosition(grid[k - 1]!, t), `d at T=${t}`);
    }
  }
  for (const d of grid) {
    for (let t = 2; t <= 10; t++) {
      assert.ok(dialPosition(d, t) >= dialPosition(d, t - 1), `T at d=${d}`);
    }
  }
});

Deno.test("dial — a no-signal request (d = 0.5) sits at (T − 1) / 9; each step moves 1/9 across the middle", () => {
  for (let t = 1; t <= 10; t++) assert.ok(Math.abs(dialPosition(0.5, t) - (t - 1) / 9) < 1e-12);
  // On uniform difficulty the share with s ≥ 1/2 is (T − 1) / 9.
  const n = 9000;
  for (let t = 1; t <= 10; t++) {
    let above = 0;
    for (let i = 0; i < n; i++) if (dialPosition((i + 0.5) / n, t) >= 0.5) above++;
    assert.ok(Math.abs(above / n - (t - 1) / 9) < 0.001, `T=${t}: ${above / n}`);
  }
});

Deno.test("tierFor — nearest quality tier, ties upward, monotone", () => {
  const qs = [0.25, 0.5, 1];
  assert.equal(tierFor(qs, 0.25), 0);
  assert.equal(tierFor(qs, 0.37), 0);
  assert.equal(tierFor(qs, 0.375), 1);
  assert.equal(tierFor(qs, 0.74), 1);
  assert.equal(tierFor(qs, 0.75), 2);
  assert.equal(tierFor([0.5], 0.9), 0);
  let last = 0;
  for (let r = 0; r <= 1; r += 0.01) {
    const t = tierFor(qs, neededQuality(r, 0.2, 0.9));
    assert.ok(t >= last);
    last = t;
  }
});

Deno.test("tierFor — a tier's own quality stays in that tier when the next is one float above", () => {
  // (q0 + q1) / 2 rounds to q0 for neighbouring doubles: T=1 must still get the bottom tier
  // (a fast-check seed of the decision property test found this).
  const q0 = 0.9999999999999991;
  const q1 = 0.9999999999999992;
  assert.equal((q0 + q1) / 2, q0);
  assert.equal(tierFor([q0, q1], q0), 0);
  assert.equal(tierFor([q0, q1], q1), 1);
  assert.equal(tierFor([0.25, 0.5, 1], 0.5), 1);
});
