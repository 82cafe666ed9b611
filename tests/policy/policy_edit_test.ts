/**
 * The policy-change rules the admin CLI and the dashboard share (`src/policy/policy_edit.ts`),
 * directly, against the shipped catalog: fields left out are unchanged, lists are whole values
 * (sorted, without duplicates), unknown providers and models are refused (a provider the list
 * already holds is kept), an empty allow-list is refused at both levels, a key keeps only what it
 * narrows, and the organization's remote guardrail layer is re-checked on every change. Refusals
 * are the spec's error object (400 `invalid_request`, `param` the field).
 */
import assert from "node:assert/strict";
import { loadCatalog } from "../../src/catalog/load.ts";
import { DIALECTS } from "../../src/providers/registry.ts";
import { REPO_ROOT } from "../helpers/api.ts";
import {
  editKeyPolicy,
  editOrgPolicy,
  PolicyEditError,
  type PolicyEditProblem,
} from "../../src/policy/policy_edit.ts";
import { DEFAULT_ORG_POLICY, type OrgPolicy } from "../../src/state/policy_store.ts";

const catalog = await loadCatalog(`${REPO_ROOT}/catalog`, DIALECTS);
const SMALL = "mistral/mistral-small-2506";
const LARGE = "mistral/mistral-large-2512";
const MODERATION = "mistral/mistral-moderation-2603";

function refuses(edit: () => unknown, problem: PolicyEditProblem, param: string): void {
  assert.throws(edit, (error: unknown) => {
    assert.ok(error instanceof PolicyEditError, String(error));
    assert.deepEqual(error.problem, problem);
    assert.equal(error.status, 400);
    assert.deepEqual(error.toJSON().error, {
      message: error.message,
      type: "invalid_request_error",
      code: "invalid_request",
      param,
    });
    return true;
  });
}

Deno.test("editOrgPolicy — changes only the fields given; lists whole, sorted, without duplicates", () => {
  const current: OrgPolicy = { ...DEFAULT_ORG_POLICY, blocked_providers: ["ionos"] };
  assert.deepEqual(editOrgPolicy(current, {}, catalog), current);
  const next = editOrgPolicy(current, {
    sovereignty: "strict_only",
    blocked_providers: ["scaleway", "bedrock", "scaleway"],
    zdr_only: true,
    allowed_models: [SMALL, LARGE, SMALL],
    guardrail: "flag",
  }, catalog);
  assert.deepEqual(next, {
    sovereignty: "strict_only",
    blocked_providers: ["bedrock", "scaleway"],
    zdr_only: true,
    allowed_models: [LARGE, SMALL],
    guardrail: "flag",
    guardrail_remote: null,
  });
  assert.deepEqual(current.blocked_providers, ["ionos"], "the current policy is not changed");
  assert.equal(editOrgPolicy(next, { allowed_models: null }, catalog).allowed_models, null);
  assert.deepEqual(editOrgPolicy(next, { blocked_providers: [] }, catalog).blocked_providers, []);
  assert.equal(editOrgPolicy(next, { sovereignty: "any" }, catalog).sovereignty, "any");
});

Deno.test("editOrgPolicy — unknown provider and model, empty allow-list: refused as the spec's error", () => {
  refuses(
    () => editOrgPolicy(DEFAULT_ORG_POLICY, { blocked_providers: ["mistral", "nope"] }, catalog),
    { kind: "unknown_provider", id: "nope", known: Object.keys(catalog.providers) },
    "blocked_providers",
  );
  refuses(
    () => editOrgPolicy(DEFAULT_ORG_POLICY, { allowed_models: [SMALL, "no/such"] }, catalog),
    { kind: "unknown_model", id: "no/such" },
    "allowed_models",
  );
  // A moderation model is not a model clients may call: not an allow-list entry.
  refuses(
    () => editOrgPolicy(DEFAULT_ORG_POLICY, { allowed_models: [MODERATION] }, catalog),
    { kind: "unknown_model", id: MODERATION },
    "allowed_models",
  );
  refuses(
    () => editOrgPolicy(DEFAULT_ORG_POLICY, { allowed_models: [] }, catalog),
    { kind: "empty_allow_list" },
    "allowed_models",
  );
  // Without a catalog only the catalog checks go; the empty allow-list is still refused.
  assert.deepEqual(
    editOrgPolicy(DEFAULT_ORG_POLICY, { blocked_providers: ["nope"] }, undefined)
      .blocked_providers,
    ["nope"],
  );
  refuses(
    () => editOrgPolicy(DEFAULT_ORG_POLICY, { allowed_models: [] }, undefined),
    { kind: "empty_allow_list" },
    "allowed_models",
  );
});

Deno.test("policy edit — a provider the list already holds stays, also when the catalog dropped it", () => {
  const stale: OrgPolicy = { ...DEFAULT_ORG_POLICY, blocked_providers: ["gone"] };
  assert.deepEqual(
    editOrgPolicy(stale, { blocked_providers: ["gone", "ionos"] }, catalog).blocked_providers,
    ["gone", "ionos"],
  );
  assert.deepEqual(
    editKeyPolicy(
      { blocked_providers: ["gone"] },
      { blocked_providers: ["gone", "vertex"] },
      catalog,
    ),
    { blocked_providers: ["gone", "vertex"] },
  );
  refuses(
    () => editKeyPolicy({ blocked_providers: ["gone"] }, { blocked_providers: ["other"] }, catalog),
    { kind: "unknown_provider", id: "other", known: Object.keys(catalog.providers) },
    "blocked_providers",
  );
});

Deno.test("editKeyPolicy — keeps only what the key narrows; any, false, off, null and [] drop it", () => {
  const narrowed = editKeyPolicy({}, {
    sovereignty: "strict_only",
    blocked_providers: ["vertex", "bedrock"],
    zdr_only: true,
    allowed_models: [SMALL],
    guardrail: "block",
  }, catalog);
  assert.deepEqual(narrowed, {
    sovereignty: "strict_only",
    blocked_providers: ["bedrock", "vertex"],
    zdr_only: true,
    allowed_models: [SMALL],
    guardrail: "block",
  });
  assert.deepEqual(editKeyPolicy(narrowed, {}, catalog), narrowed, "nothing given: unchanged");
  assert.deepEqual(
    editKeyPolicy(narrowed, {
      sovereignty: "any",
      blocked_providers: [],
      zdr_only: false,
      allowed_models: null,
      guardrail: "off",
    }, catalog),
    {},
  );
  assert.deepEqual(editKeyPolicy(narrowed, { guardrail: "flag" }, catalog).guardrail, "flag");
  assert.deepEqual(narrowed.blocked_providers, ["bedrock", "vertex"], "current not changed");
});

Deno.test("editKeyPolicy — an empty allow-list is refused, like unknown providers and models", () => {
  refuses(
    () => editKeyPolicy({ allowed_models: [SMALL] }, { allowed_models: [] }, catalog),
    { kind: "empty_allow_list" },
    "allowed_models",
  );
  refuses(
    () => editKeyPolicy({}, { allowed_models: ["no/such"] }, catalog),
    { kind: "unknown_model", id: "no/such" },
    "allowed_models",
  );
  refuses(
    () => editKeyPolicy({}, { blocked_providers: ["nope"] }, catalog),
    { kind: "unknown_provider", id: "nope", known: Object.keys(catalog.providers) },
    "blocked_providers",
  );
});

Deno.test("editOrgPolicy — the remote guardrail layer: set, validated, re-checked when the data rules change", () => {
  const on = editOrgPolicy(DEFAULT_ORG_POLICY, {
    guardrail: "block",
    guardrail_remote: { model: MODERATION, on_error: "closed" },
  }, catalog);
  assert.deepEqual(on.guardrail_remote, {
    model: MODERATION,
    timeout_ms: 1500,
    on_error: "closed",
  });
  assert.deepEqual(
    editOrgPolicy(on, { guardrail_remote: { timeout_ms: 300 } }, catalog).guardrail_remote,
    { model: MODERATION, timeout_ms: 300, on_error: "closed" },
    "only the fields named change",
  );
  assert.equal(
    editOrgPolicy(on, { guardrail_remote: { model: null } }, catalog).guardrail_remote,
    null,
  );
  // Blocking the classifier's only provider leaves it no route: refused, naming the layer.
  refuses(
    () => editOrgPolicy(on, { blocked_providers: ["mistral"] }, catalog),
    { kind: "guardrail_remote", field: "model" },
    "guardrail_remote",
  );
  refuses(
    () => editOrgPolicy(on, { guardrail_remote: { timeout_ms: 10 } }, catalog),
    { kind: "guardrail_remote", field: "timeout_ms" },
    "guardrail_remote",
  );
  refuses(
    () => editOrgPolicy(DEFAULT_ORG_POLICY, { guardrail_remote: { model: SMALL } }, catalog),
    { kind: "guardrail_remote", field: "model" },
    "guardrail_remote",
  );
  // The layer off: a data rule change never asks about it.
  assert.equal(
    editOrgPolicy(DEFAULT_ORG_POLICY, { blocked_providers: ["mistral"] }, catalog)
      .guardrail_remote,
    null,
  );
});
