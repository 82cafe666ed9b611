import assert from "node:assert/strict";
import { classifyText, quantileOf, shippedWeights } from "../../src/smart_router/classifier.ts";
import { extractFeatures, FEATURE_NAMES, SCAN_HALF } from "../../src/smart_router/features.ts";

Deno.test("classifier — the shipped weights match the feature list (retrain after a change)", () => {
  assert.deepEqual(shippedWeights.feature_names, [...FEATURE_NAMES]);
  assert.equal(shippedWeights.dense.length, FEATURE_NAMES.length);
  assert.equal(shippedWeights.quantiles.length, 101);
  assert.equal(shippedWeights.no_signal_quantiles.length, 101);
  for (let i = 1; i < 101; i++) {
    assert.ok(shippedWeights.quantiles[i]! > shippedWeights.quantiles[i - 1]!);
  }
});

Deno.test("classifier — no text is exactly the middle, flagged as no signal", () => {
  assert.deepEqual(classifyText(""), { difficulty: 0.5, task: "general", noSignal: true });
});

Deno.test("classifier — a no-signal prompt lands in the middle band, never at the cheap end", () => {
  for (
    const text of [
      "Tell me about the Treaty of Westphalia.",
      "What was the role of the Hanseatic League in the Baltic economy during the fourteenth century, and which cities were its main members?",
      "Kurze Frage zur Grundsteuer in Bayern",
    ]
  ) {
    const c = classifyText(text);
    assert.equal(c.noSignal, true, text);
    assert.ok(c.difficulty >= 0.25 && c.difficulty <= 0.75, `${text}: ${c.difficulty}`);
  }
});

Deno.test("classifier — task types, in several EU languages", () => {
  assert.equal(classifyText("Write a Python function that reverses a linked list.").task, "code");
  assert.equal(classifyText("Solve the equation 3x + 7 = 22 for x.").task, "math");
  assert.equal(classifyText("Schreibe ein kurzes Gedicht über den Herbst.").task, "writing");
  assert.equal(
    classifyText("Traduis ce paragraphe en allemand, s'il te plaît.").task,
    "translation",
  );
  assert.equal(
    classifyText("Extract all dates and amounts from this invoice as JSON.").task,
    "extraction",
  );
  assert.equal(classifyText("hello! how are you today?").task, "chat");
});

Deno.test("classifier — a hard code/maths prompt scores above small talk and light writing", () => {
  const hard = classifyText(
    "Prove that the sum of the first n odd numbers equals n^2, then write a Rust function that " +
      "computes it and explain its complexity step by step.",
  ).difficulty;
  for (const easy of ["hi there, thanks!", "Write a haiku about coffee."]) {
    assert.ok(hard > classifyText(easy).difficulty, easy);
  }
});

Deno.test("classifier — a closed multiple-choice question raises no task flag", () => {
  const c = classifyText(
    "Which gas makes up most of Earth's atmosphere?\nA. Oxygen\nB. Nitrogen\nC. Argon\nD. Carbon dioxide\nAnswer:",
  );
  assert.equal(c.task, "general");
  assert.equal(c.noSignal, true);
});

Deno.test("classifier — only the first and last 4 KiB are scanned (2 MiB costs the same as 8 KiB)", () => {
  const head = "Write a SQL query that joins orders and customers. ".repeat(100).slice(
    0,
    SCAN_HALF,
  );
  const tail = "Then explain why the index helps. ".repeat(200).slice(-SCAN_HALF);
  const huge = head + "x".repeat(2 * 1024 * 1024) + tail;
  const small = head + "y".repeat(100) + tail;
  const a = extractFeatures(huge);
  const b = extractFeatures(small);
  assert.deepEqual(a.tasks, b.tasks);
  // Only the length features differ (they count the whole text).
  assert.deepEqual([...a.dense].slice(2), [...b.dense].slice(2));
  assert.ok(a.dense[0]! > b.dense[0]!);
});

Deno.test("classifier — deterministic", () => {
  const text = "Compare the trade-offs of B-trees and LSM trees for a write-heavy workload.";
  assert.deepEqual(classifyText(text), classifyText(text));
});

Deno.test("quantileOf — maps the knots onto [0, 1], interpolating, clamped at the ends", () => {
  const knots = Array.from({ length: 101 }, (_, i) => i);
  assert.equal(quantileOf(knots, -5), 0);
  assert.equal(quantileOf(knots, 500), 1);
  assert.equal(quantileOf(knots, 50), 0.5);
  assert.equal(quantileOf(knots, 25.5), 0.255);
});
