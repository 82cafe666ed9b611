/**
 * The one endpoint list (`src/http/endpoints.ts`) feeds the app's routes, `/openapi.json` and
 * the 405 `Allow` table: every documented operation is routed (never the unknown-path 404 or a
 * 405), and every public one answers without a key.
 */
import assert from "node:assert/strict";
import { startHarness } from "../helpers/harness.ts";
import { endpoints, honoPath } from "../../src/http/endpoints.ts";
import { BILLED_ENDPOINTS } from "../../src/billed_endpoints.ts";
import { endpointOf } from "../../src/telemetry/telemetry.ts";

Deno.test("honoPath — an OpenAPI path parameter takes the rest of the path", () => {
  assert.equal(honoPath("/v1/models/{id}"), "/v1/models/:id{.+}");
  assert.equal(honoPath("/v1/chat/completions"), "/v1/chat/completions");
});

Deno.test("endpoints — each billed endpoint is routed once, billed, under its name's label", () => {
  for (const [name, billed] of Object.entries(BILLED_ENDPOINTS)) {
    const routed = endpoints.filter((e) => e.path === billed.path);
    assert.deepEqual(routed.map((e) => [e.method, e.gate]), [["post", "billed"]], name);
    assert.equal(endpointOf(billed.path), name);
  }
  assert.equal(endpointOf("/v1/models"), "models");
  assert.equal(endpointOf("/nowhere"), "other");
});

Deno.test("endpoints — every operation in /openapi.json is routed with its method", async () => {
  await using h = await startHarness({ models: [] });
  const doc = await (await fetch(`${h.url}/openapi.json`, {
    headers: { authorization: `Bearer ${h.key}` },
  })).json() as { paths: Record<string, Record<string, unknown>> };
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method} ${path}`)
  ).sort();
  assert.deepEqual(documented, endpoints.map((e) => `${e.method} ${e.path}`).sort());

  for (const endpoint of endpoints) {
    const url = h.url + endpoint.path.replace("{id}", "acme/unknown");
    const headers: Record<string, string> = endpoint.gate === "none"
      ? {}
      : { authorization: `Bearer ${h.key}`, "content-type": "application/json" };
    const response = await fetch(url, {
      method: endpoint.method.toUpperCase(),
      headers,
      ...(endpoint.method === "post" ? { body: "{}" } : {}),
    });
    const text = await response.text();
    assert.notEqual(response.status, 405, `${endpoint.method} ${endpoint.path}: ${text}`);
    assert.ok(!text.includes('"not_found"'), `${endpoint.method} ${endpoint.path}: ${text}`);
    if (endpoint.gate === "none") assert.equal(response.status, 200, endpoint.path);
  }
});
