/**
 * Rule 4 with rule 7 on a model whose primary is an `openai`-dialect route and whose standby
 * rebuilds (Bedrock): a request the standby cannot express (a tool call whose arguments are not
 * a JSON object) is decided by the routing plan before any call. When the primary fails, the
 * standby is skipped, the client gets the primary's failure, and the request that reached a
 * provider leaves its metadata row. Before the plan this answered 400 and left no row.
 */
import assert from "node:assert/strict";
import { BEDROCK_CLAUDE, platformModel, routeOf } from "../../helpers/platforms.ts";
import {
  assertErrorShape,
  lastRow,
  resetAll,
  upstreamCalls,
  user,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

const MODELS = [
  platformModel("e2e/openai-down-then-bedrock", [
    { provider: "sim-a", upstream_model: "mixed+fail-503" },
    routeOf("bedrock-claude"),
  ]),
  platformModel("e2e/openai-then-bedrock", [
    { provider: "sim-a", upstream_model: "mixed" },
    { provider: "aws-eu", upstream_model: BEDROCK_CLAUDE },
  ]),
];

const BAD_TOOL_LOOP = [
  user("What is the weather in Paris?"),
  {
    role: "assistant",
    content: null,
    tool_calls: [{
      id: "call_1",
      type: "function",
      function: { name: "get_weather", arguments: '["Paris"]' },
    }],
  },
  { role: "tool", tool_call_id: "call_1", content: "sunny" },
];

Deno.test("POST /v1/chat/completions — a standby that cannot express the request is skipped after the primary failed, and the row is written", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    await t.step(
      "primary 503, standby refused by the plan → the primary's 502 and a row",
      async () => {
        await resetAll(h, p);
        const res = await h.post("/v1/chat/completions", {
          model: "e2e/openai-down-then-bedrock",
          messages: BAD_TOOL_LOOP,
        });
        const body: unknown = await res.json();
        assert.equal(res.status, 502, JSON.stringify(body));
        assertErrorShape(body, "upstream_error");
        assert.equal(p.bedrock.requests.length, 0, "the refused standby was never called");
        assert.equal(upstreamCalls(h, p), 1);
        const row = await lastRow(h);
        assert.equal(row.status, 502);
        assert.equal(row.provider, "sim-a");
        assert.equal(row.cost_micro_eur, 0);
      },
    );

    await t.step("the same request on a healthy primary is served by it", async () => {
      await resetAll(h, p);
      const res = await h.post("/v1/chat/completions", {
        model: "e2e/openai-then-bedrock",
        messages: BAD_TOOL_LOOP,
      });
      assert.equal(res.status, 200, await res.clone().text());
      await res.body?.cancel();
      assert.equal(res.headers.get("x-sovra-provider"), "sim-a");
      const row = await lastRow(h);
      assert.equal(row.status, 200);
      assert.equal(row.provider, "sim-a");
    });
  });
});
