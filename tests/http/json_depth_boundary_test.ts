/**
 * The body depth limit's exact boundary through the real HTTP stack, at the default limit (64):
 * a body whose deepest object or array sits at depth 63 (the root at 0) is served, one at depth
 * 64 is refused with 400 `invalid_request` before any upstream call, for arrays and objects
 * alike; brackets inside strings and keys are text, not depth. The function-level property test
 * (`json_depth_walk_test.ts`) runs small limits only; this pins the one the gateway uses.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { withHarness } from "../helpers/chat.ts";
import { JSON_MAX_DEPTH } from "../../src/http/json_limits.ts";

/** `levels` arrays nested in one another, the innermost empty. */
function arrays(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

/** `levels` objects nested in one another, the innermost empty. */
function objects(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

const CHAT = { model: "acme/chat", messages: [{ role: "user", content: "hi" }] };

Deno.test("body depth: the deepest structure at depth 63 is served, at 64 refused (arrays and objects)", () =>
  withHarness({ models: [chatModel("acme/chat", "up")] }, async (h) => {
    assert.equal(JSON_MAX_DEPTH, 64);
    // `metadata` sits at depth 1 and its value `x` at depth 2: n levels under it reach depth n + 1.
    for (const build of [arrays, objects]) {
      const served = await h.post("/v1/chat/completions", {
        ...CHAT,
        metadata: { x: build(JSON_MAX_DEPTH - 2) },
      });
      const servedText = await served.text();
      assert.equal(served.status, 200, `${build.name} at depth 63: ${servedText.slice(0, 300)}`);

      const calls = h.sim.requests.length;
      const refused = await h.post("/v1/chat/completions", {
        ...CHAT,
        metadata: { x: build(JSON_MAX_DEPTH - 1) },
      });
      const body = await refused.json();
      assert.equal(refused.status, 400, `${build.name} at depth 64`);
      assert.equal(body.error.code, "invalid_request");
      assert.match(body.error.message, /^The field 'metadata\.x\S*' nests deeper than 64 levels/);
      assert.equal(h.sim.requests.length, calls, "no upstream call for a body too deep");
    }
    // Brackets in strings and keys are not structure.
    const text = await h.post("/v1/chat/completions", {
      ...CHAT,
      metadata: { x: "[{".repeat(100), ["[".repeat(100)]: "]".repeat(100) },
    });
    await text.body?.cancel();
    assert.equal(text.status, 200);
  }));
