/** GET /openapi.json describes the three non-chat endpoints. */
import assert from "node:assert/strict";
import { startHarness } from "../helpers/harness.ts";

Deno.test("openapi.json — lists embeddings, transcriptions and speech as POST paths", async () => {
  await using h = await startHarness({ models: [] });
  const response = await fetch(`${h.url}/openapi.json`, {
    headers: { authorization: `Bearer ${h.key}` },
  });
  assert.equal(response.status, 200);
  const doc = await response.json() as {
    info?: { version?: string };
    paths?: Record<string, Record<string, unknown>>;
  };
  assert.equal(doc.info?.version, "1.0.0");
  for (const path of ["/v1/embeddings", "/v1/audio/transcriptions", "/v1/audio/speech"]) {
    assert.ok(doc.paths?.[path]?.post, `${path} has a POST operation`);
  }
});
