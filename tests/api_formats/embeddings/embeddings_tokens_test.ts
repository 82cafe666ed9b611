/**
 * Audit of POST /v1/embeddings with token-array input ("other forms: not shown"): forwarded
 * unchanged, and billed by its token count when the provider reports no usage.
 */
import assert from "node:assert/strict";
import { withScripted } from "../../helpers/scripted_upstream.ts";

const MODEL = "audit/embed";

Deno.test("POST /v1/embeddings — token arrays pass unchanged and, without upstream usage, bill their token count", () =>
  withScripted(
    () =>
      Response.json({
        object: "list",
        data: [
          { object: "embedding", index: 0, embedding: [0.1, 0.2] },
          { object: "embedding", index: 1, embedding: [0.3, 0.4] },
        ],
        model: "up-embed",
      }),
    async (h, up) => {
      const input = [[101, 102, 103], [104, 105]];
      const res = await h.post("/v1/embeddings", { model: MODEL, input });
      assert.equal(res.status, 200);
      const body = await res.json() as { data: unknown[]; model: string };
      assert.equal(body.data.length, 2);
      assert.equal(body.model, MODEL);
      assert.deepEqual(up.bodies[0], { model: "up-embed", input });
      await h.flushed();
      const [row] = await h.store.listRequests(h.org, 1);
      assert.equal(row?.prompt_tokens, 5);
      assert.equal(row?.estimated, true);
      assert.equal(row?.cost_micro_eur, 5); // 5 tokens at 1,000,000 micro-EUR per million
    },
    {
      models: [{
        id: MODEL,
        kind: "embedding",
        pricing: { prompt_micro_eur_per_million: 1_000_000 },
        routes: [{ provider: "script", upstream_model: "up-embed" }],
      }],
    },
  ));
