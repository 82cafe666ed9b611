/**
 * The Errors table on rebuilding routes without a standby: upstream throttling → 429
 * `upstream_rate_limited`, upstream 5xx → 502 `upstream_error`, the platform rejecting the
 * service's credentials → 502 `upstream_auth_error`, a validation error → 400 carrying the
 * provider's message in the spec's error shape. No upstream credential (AWS secret,
 * service-account private key, Vertex bearer token) ever reaches a client.
 */
import assert from "node:assert/strict";
import { type Family, platformModel, routeOf } from "../../helpers/platforms.ts";
import {
  assertErrorShape,
  lastRow,
  readToEnd,
  resetAll,
  user,
  withPlatforms,
} from "../../helpers/platform_suite.ts";

interface Case {
  name: string;
  model: string;
  status: number;
  code?: string;
  message?: RegExp;
}

const MODELS = [
  platformModel("e2e/ok-bedrock", [routeOf("bedrock-claude")]),
  platformModel("e2e/ok-vertex", [routeOf("vertex-claude")]),
  platformModel("e2e/bad-key", [{
    provider: "aws-badkey",
    upstream_model: routeOf("bedrock-claude").upstream_model,
  }]),
];
const CASES: Case[] = [];

function failing(family: Family, status: number, expected: Omit<Case, "name" | "model">): void {
  const model = `e2e/${family}-fail-${status}`;
  MODELS.push(platformModel(model, [routeOf(family, `+fail-${status}`)]));
  CASES.push({ name: `${family} fail-${status}`, model, ...expected });
}

for (const family of ["bedrock-claude", "bedrock-nova", "vertex-claude"] as const) {
  failing(family, 429, { status: 429, code: "upstream_rate_limited" });
  failing(family, 500, { status: 502, code: "upstream_error" });
  failing(family, 503, { status: 502, code: "upstream_error" });
  failing(family, 403, { status: 502, code: "upstream_auth_error" });
}
failing("vertex-claude", 529, { status: 502, code: "upstream_error" });
failing("vertex-claude", 401, { status: 502, code: "upstream_auth_error" });
failing("bedrock-claude", 400, { status: 400, message: /Simulated ValidationException\./ });
failing("bedrock-nova", 400, { status: 400, message: /Simulated ValidationException\./ });
failing("vertex-claude", 400, { status: 400, message: /Simulated failure\./ });
CASES.push({
  name: "bedrock wrong AWS secret",
  model: "e2e/bad-key",
  status: 502,
  code: "upstream_auth_error",
});

Deno.test("POST /v1/chat/completions on rebuilding routes — upstream errors map to the Errors table", async (t) => {
  await withPlatforms(MODELS, async (h, p) => {
    const seen: string[] = [];
    const send = async (body: Record<string, unknown>) => {
      const res = await h.post("/v1/chat/completions", body);
      const text = (await readToEnd(res)).text;
      seen.push(text, JSON.stringify([...res.headers]));
      return { status: res.status, text };
    };

    await t.step("control — both platforms answer with the right credentials", async () => {
      for (const model of ["e2e/ok-bedrock", "e2e/ok-vertex"]) {
        for (const stream of [false, true]) {
          const res = await send({ model, messages: [user("Hello")], stream });
          assert.equal(res.status, 200, res.text);
        }
      }
      assert.ok(p.bearerTokens().length > 0, "the gateway authenticated to Vertex");
    });

    for (const c of CASES) {
      for (const stream of [false, true]) {
        await t.step(
          `${c.name}${stream ? " (stream)" : ""} → ${c.status} ${c.code ?? ""}`,
          async () => {
            await resetAll(h, p);
            const res = await send({ model: c.model, messages: [user("Hello")], stream });
            assert.equal(res.status, c.status, res.text);
            const error = assertErrorShape(JSON.parse(res.text), c.code);
            if (c.message) assert.match(String(error.message), c.message);
            if (c.status === 400) {
              assert.ok(
                String(error.code) !== "upstream_error" && String(error.code) !== "",
                "a validation error is the client's, not an upstream outage",
              );
            }
            const row = await lastRow(h);
            assert.equal(row.endpoint, "chat");
            assert.equal(row.status, c.status, "the metadata records the client's status");
            assert.equal(row.stream, stream);
            assert.equal(row.cost_micro_eur, 0, "nothing generated, nothing billed");
            const calls = p.bedrock.requests.length + p.vertex.requests.length;
            if (c.model === "e2e/bad-key") {
              // The Bedrock simulator records only requests whose SigV4 signature verified.
              assert.equal(calls, 0, "the wrong secret failed signature verification");
            } else if (c.name === "vertex-claude fail-401") {
              // A Vertex 401 may be retried once with a fresh access token.
              assert.ok(calls === 1 || calls === 2, `${calls} upstream attempts`);
            } else {
              assert.equal(calls, 1, "one upstream attempt, no standby");
            }
          },
        );
      }
    }

    await t.step("no upstream credential appears in any response", () => {
      const all = seen.join("\n");
      const secrets = [...p.secrets(), ...new Set(p.bearerTokens())];
      assert.ok(secrets.length >= 4);
      for (const secret of secrets) {
        assert.ok(!all.includes(secret), `a credential leaked (${secret.slice(0, 6)}…)`);
      }
    });
  });
});
