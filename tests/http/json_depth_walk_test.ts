/**
 * The body depth check (`checkJsonDepth`) walks only objects and arrays with their depth, and
 * walks again with paths only for a body that is too deep: on every generated JSON value it
 * must refuse exactly when a path-tracking walk finds a structure at the limit, naming the same
 * field.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkJsonDepth } from "../../src/http/json_limits.ts";

/** The deepest structure (object or array) of a JSON value; a scalar root: -1. */
function deepestStructure(value: unknown, depth = 0): number {
  if (typeof value !== "object" || value === null) return -1;
  let deepest = depth;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    deepest = Math.max(deepest, deepestStructure(child, depth + 1));
  }
  return deepest;
}

Deno.test("checkJsonDepth refuses exactly the values with a structure at the limit", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 7 }), fc.integer({ min: 1, max: 6 }), (value, max) => {
      const tooDeep = deepestStructure(value) >= max;
      let error: unknown;
      try {
        checkJsonDepth(value, max);
      } catch (e) {
        error = e;
      }
      assert.equal(error !== undefined, tooDeep, JSON.stringify(value));
      if (error) assert.match((error as Error).message, new RegExp(`deeper than ${max} levels`));
    }),
    { numRuns: 3_000 },
  );
});

Deno.test("checkJsonDepth names the field where the body nests too deep", () => {
  const body = { model: "m", tools: [{ function: { parameters: { a: { b: { c: {} } } } } }] };
  assert.throws(
    () => checkJsonDepth(body, 5),
    (error: Error) => {
      assert.match(error.message, /^The field 'tools\[0\]\.function' nests deeper than 5 levels/);
      assert.match(error.message, /at 'tools\[0\]\.function\.parameters\.a'\)/);
      return true;
    },
  );
  assert.throws(() => checkJsonDepth(body, 7), /at 'tools\[0\]\.function\.parameters\.a\.b…'/);
  checkJsonDepth(body, 8);
});
