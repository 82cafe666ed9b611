/** `mergeUsage` (src/canonical/usage.ts): usage reports merged over a stream. */
import assert from "node:assert/strict";
import { mergeUsage } from "../../src/canonical/usage.ts";

Deno.test("mergeUsage — a later partial report never erases a known count", () => {
  const known = mergeUsage(undefined, { promptTokens: 12, completionTokens: undefined });
  const merged = mergeUsage(known, { promptTokens: undefined, completionTokens: 30 });
  assert.deepEqual(merged, { promptTokens: 12, completionTokens: 30 });
});
