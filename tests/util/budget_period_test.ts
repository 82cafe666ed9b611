import assert from "node:assert/strict";
import fc from "fast-check";
import {
  BUDGET_PERIODS,
  budgetPeriodIds,
  budgetPeriodPast,
  budgetWindow,
  keptBudgetPeriods,
} from "../../src/util/budget_period.ts";

const at = (iso: string) => Date.parse(iso);

Deno.test("budget windows: a day from 00:00 UTC, an ISO week from Monday, a month from the 1st", () => {
  // Wednesday 2026-12-02, late in the UTC day.
  const now = at("2026-12-02T23:59:59.999Z");
  assert.deepEqual({ ...budgetWindow("day", now) }, {
    id: "d:2026-12-02",
    start: at("2026-12-02T00:00:00Z"),
    resetsAt: at("2026-12-03T00:00:00Z"),
  });
  assert.deepEqual({ ...budgetWindow("week", now) }, {
    id: "w:2026-11-30",
    start: at("2026-11-30T00:00:00Z"),
    resetsAt: at("2026-12-07T00:00:00Z"),
  });
  assert.deepEqual({ ...budgetWindow("month", now) }, {
    id: "m:2026-12",
    start: at("2026-12-01T00:00:00Z"),
    resetsAt: at("2027-01-01T00:00:00Z"),
  });
  assert.deepEqual({ ...budgetWindow("total", now) }, { id: "t", start: 0, resetsAt: null });
  // One millisecond later is the next day (the week and month go on).
  assert.equal(budgetWindow("day", now + 1).id, "d:2026-12-03");
  assert.equal(budgetWindow("week", now + 1).id, "w:2026-11-30");
  // A Sunday belongs to the week that began on the Monday before; a Monday starts its own.
  assert.equal(budgetWindow("week", at("2026-12-06T12:00:00Z")).id, "w:2026-11-30");
  assert.equal(budgetWindow("week", at("2026-12-07T00:00:00Z")).id, "w:2026-12-07");
  // A week across a year's end, a leap day's month.
  assert.equal(budgetWindow("week", at("2027-01-01T08:00:00Z")).id, "w:2026-12-28");
  assert.equal(
    budgetWindow("month", at("2028-02-29T10:00:00Z")).resetsAt,
    at("2028-03-01T00:00:00Z"),
  );
});

Deno.test("budget periods: a request's ids are its start's four windows, from its ISO time", () => {
  assert.deepEqual(
    [...budgetPeriodIds("2026-12-31T23:00:00.000Z")],
    ["d:2026-12-31", "w:2026-12-28", "m:2026-12", "t"],
  );
  // Asked alternately for two days, each answer is its own day's (the kept day is replaced).
  assert.deepEqual([...budgetPeriodIds("2027-01-01T00:00:00.000Z")], [
    "d:2027-01-01",
    "w:2026-12-28",
    "m:2027-01",
    "t",
  ]);
  assert.equal(budgetPeriodIds("2026-12-31T00:00:00.000Z")[0], "d:2026-12-31");
  assert.throws(() => budgetPeriodIds("not a time"), RangeError);
  // The windows handed out are shared: frozen, so no caller can change another's.
  assert.ok(Object.isFrozen(budgetWindow("day", Date.now())));
  assert.ok(Object.isFrozen(budgetPeriodIds(new Date().toISOString())));
});

/** The windows worked out independently, from the calendar fields of the instant. */
function referenceIds(ms: number): string[] {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  const ymd = (x: Date) =>
    `${x.getUTCFullYear()}-${pad(x.getUTCMonth() + 1)}-${pad(x.getUTCDate())}`;
  const monday = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  while (monday.getUTCDay() !== 1) monday.setUTCDate(monday.getUTCDate() - 1);
  return [`d:${ymd(d)}`, `w:${ymd(monday)}`, `m:${ymd(d).slice(0, 7)}`, "t"];
}

Deno.test("budget periods: any instant from 1970 to 2200, in any order, matches the calendar", () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 7_258_118_400_000 }), { minLength: 1 }),
      (times) => {
        for (const ms of times) {
          const expected = referenceIds(ms);
          assert.deepEqual([...budgetPeriodIds(new Date(ms).toISOString())], expected);
          assert.deepEqual(BUDGET_PERIODS.map((p) => budgetWindow(p, ms).id), expected);
          const day = budgetWindow("day", ms);
          assert.ok(day.start <= ms && ms < day.resetsAt!);
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("budget periods: the current and the previous period are kept, older ones are past", () => {
  const now = at("2026-12-02T10:00:00Z");
  assert.deepEqual(keptBudgetPeriods(now), {
    day: "d:2026-12-01",
    week: "w:2026-11-23",
    month: "m:2026-11",
  });
  assert.equal(budgetPeriodPast("d:2026-11-30", now), true);
  assert.equal(budgetPeriodPast("d:2026-12-01", now), false);
  assert.equal(budgetPeriodPast("w:2026-11-16", now), true);
  assert.equal(budgetPeriodPast("m:2026-10", now), true);
  assert.equal(budgetPeriodPast("m:2026-11", now), false);
  assert.equal(budgetPeriodPast("t", now), false);
});
