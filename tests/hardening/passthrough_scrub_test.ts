/**
 * Attack: a provider 4xx that quotes the request hands the
 * gateway's upstream key to the client when passed through as-is; a passthrough with
 * `code: null` is not the spec's error object. Both are fixed before the body leaves.
 */
import assert from "node:assert/strict";
import { SIM_KEY } from "../helpers/harness.ts";
import { withScripted } from "../helpers/scripted_upstream.ts";

Deno.test("attack — a provider 4xx quoting the upstream key is scrubbed; code null becomes a string", () =>
  withScripted(
    () =>
      Response.json({
        error: {
          message: `Invalid request. Headers: Authorization: Bearer ${SIM_KEY}`,
          type: "invalid_request_error",
          code: null,
          param: null,
          echo: { "x-api-key": SIM_KEY, key: SIM_KEY },
        },
      }, { status: 400 }),
    async (h) => {
      for (const stream of [false, true]) {
        const res = await h.post("/v1/chat/completions", {
          model: "audit/chat",
          stream,
          messages: [{ role: "user", content: "hi" }],
        });
        const text = await res.text();
        assert.equal(res.status, 400, text);
        assert.ok(!text.includes(SIM_KEY), `the upstream key leaked: ${text}`);
        assert.ok(!text.includes("upstream-secret"), `a part of the key leaked: ${text}`);
        const body = JSON.parse(text);
        assert.equal(typeof body.error.message, "string");
        assert.match(body.error.message, /^Invalid request\./, "the provider's message stays");
        assert.equal(typeof body.error.code, "string", "code is a string");
        assert.equal(typeof body.error.type, "string");
      }
    },
  ));
