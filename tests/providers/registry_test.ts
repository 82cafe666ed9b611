/**
 * The provider registry (`src/providers/registry.ts`): each dialect module declares its
 * settings, credentials, capabilities, refusals and adapter; the catalog, the credential check,
 * rule 1 (`n`) and rule 7 read them, so a new dialect needs no edit outside its folder and the
 * registry's list.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { providersFileSchema } from "../../src/catalog/schema.ts";
import { Catalog } from "../../src/catalog/catalog.ts";
import { missingCredentials } from "../../src/catalog/credential_check.ts";
import type { DialectRules } from "../../src/catalog/dialect_rules.ts";
import type { ResolvedRoute } from "../../src/catalog/resolved_route.ts";
import { createAdapters, dialectOf, DIALECTS } from "../../src/providers/registry.ts";
import { filterParameters } from "../../src/routing/filter_parameters.ts";
import { checkRebuildingRefusals } from "../../src/providers/rebuilding_refusals.ts";
import { GatewayError } from "../../src/errors.ts";

const ACME: DialectRules = {
  id: "acme",
  settings: { field: "acme", schema: z.strictObject({ key_env: z.string() }) },
  credentials: (p) => [(p.acme as { key_env?: string } | undefined)?.key_env],
};
const TABLE = [...DIALECTS, ACME];

function issues(providers: unknown, table: readonly DialectRules[] = TABLE): string[] {
  const result = providersFileSchema(table).safeParse({ version: 1, providers });
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

Deno.test("DIALECTS — one module per dialect id, each with an adapter", () => {
  const ids = DIALECTS.map((d) => d.id);
  assert.deepEqual(ids, ["openai", "bedrock", "vertex-anthropic", "riva-tts"]);
  const adapters = createAdapters({ secret: () => undefined });
  assert.deepEqual(Object.keys(adapters), ids);
  for (const id of ids) assert.equal(typeof adapters[id]?.chat, "function", id);
});

Deno.test("providersFileSchema — a dialect's settings block comes from its declaration", () => {
  const base = { base_url: "http://127.0.0.1:1" };
  assert.deepEqual(issues({ a: { ...base, dialect: "acme", acme: { key_env: "K" } } }), []);
  assert.deepEqual(issues({ a: { ...base, dialect: "acme" } }), [
    "providers.a.acme: is required for the 'acme' dialect",
  ]);
  assert.deepEqual(issues({ a: { ...base, dialect: "openai", acme: { key_env: "K" } } }), [
    "providers.a.acme: is only allowed for the 'acme' dialect",
  ]);
  // Without the declaration the dialect and its block are unknown.
  assert.equal(
    issues({ a: { ...base, dialect: "acme", acme: { key_env: "K" } } }, DIALECTS).length,
    2,
  );
});

Deno.test("missingCredentials — reads the names each dialect declares", () => {
  const providers = providersFileSchema(TABLE).parse({
    version: 1,
    providers: {
      o: { dialect: "openai", base_url: "http://127.0.0.1:1", api_key_env: "O_KEY" },
      a: { dialect: "acme", base_url: "http://127.0.0.1:1", acme: { key_env: "A_KEY" } },
      b: {
        dialect: "bedrock",
        base_url: "http://127.0.0.1:1",
        aws: {
          region: "eu-central-1",
          access_key_id_env: "B_ID",
          secret_access_key_env: "B_SECRET",
        },
      },
    },
  }).providers;
  const model = (provider: string) => ({
    id: `${provider}/m`,
    kind: "chat" as const,
    state: "active" as const,
    sovereignty: "strict" as const,
    pricing: {},
    supported_parameters: [],
    routes: [{ provider, upstream_model: "m" }],
  });
  const catalog = new Catalog(providers, ["o", "a", "b"].map(model));
  const set = new Set(["B_ID"]);
  assert.deepEqual(
    missingCredentials(catalog, (name) => (set.has(name) ? "x" : undefined), TABLE),
    [
      { provider: "o", env: "O_KEY" },
      { provider: "a", env: "A_KEY" },
      { provider: "b", env: "B_SECRET" },
    ],
  );
});

function route(dialect: string): ResolvedRoute {
  const model = {
    id: "p/m",
    kind: "chat" as const,
    state: "active" as const,
    sovereignty: "strict" as const,
    pricing: {},
    supported_parameters: ["n", "tools"],
    routes: [{ provider: "p", upstream_model: "m" }],
  };
  return {
    providerId: "p",
    dialect,
    provider: { dialect, base_url: "http://127.0.0.1:1", zdr: false, unsupported_parameters: [] },
    route: { provider: "p", upstream_model: "m" },
    model,
  };
}

Deno.test("capabilities — `n` and hosted tools follow each dialect's declaration", () => {
  const request = {
    model: "p/m",
    messages: [{ role: "user" as const, content: "x" }],
    stream: false,
    n: 2,
    hostedTools: [{ type: "web_search" }],
    extra: {},
  };
  for (const dialect of DIALECTS) {
    const { request: sent } = filterParameters(request, route(dialect.id));
    assert.equal(sent.n, dialect.capabilities.n ? 2 : undefined, dialect.id);
    const refused = (() => {
      try {
        checkRebuildingRefusals(request, route(dialect.id));
        return undefined;
      } catch (error) {
        assert.ok(error instanceof GatewayError);
        return error.param;
      }
    })();
    assert.equal(refused, dialect.capabilities.hostedTools ? undefined : "tools", dialect.id);
  }
  assert.equal(dialectOf("openai")?.capabilities.responseFormat, true);
  assert.equal(dialectOf("bedrock")?.capabilities.responseFormat, false);
});
