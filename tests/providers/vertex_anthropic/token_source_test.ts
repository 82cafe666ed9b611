/** `createTokenSource` (src/providers/vertex_anthropic/token_source.ts) against the Vertex simulator. */
import assert from "node:assert/strict";
import { createTokenSource } from "../../../src/providers/vertex_anthropic/token_source.ts";
import { startVertexSimulator } from "../../../scripts/simulator/vertex/mod.ts";

Deno.test("createTokenSource — one waiter's abort does not fail the shared grant for others", async () => {
  await using sim = await startVertexSimulator();
  const source = createTokenSource({
    serviceAccountJson: sim.serviceAccountJson,
    envName: "SA",
    tokenUrl: sim.tokenUrl,
    fetch,
    now: Date.now,
  });
  const first = new AbortController();
  const a = source.token(first.signal);
  const b = source.token(new AbortController().signal);
  first.abort(new Error("client left"));
  await assert.rejects(a);
  assert.match(await b, /\S+/);
});
