/** API keys of an organization: list, create (the key shown once), revoke. */
import { parseKeyBudget } from "../../accounts/key_budget.ts";
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { can, requirePermission } from "../access.ts";
import { issueApiKey, keyName } from "../../accounts/api_keys.ts";
import { type KeyState, keyState, parseExpiry } from "../../accounts/key_lifecycle.ts";
import { audit } from "../audit.ts";
import { badInput, notFound } from "../errors.ts";
import { utcDay } from "./days.ts";

/** Request rows scanned for each key's last-used day (newest first). */
const LAST_USED_SCAN = 20_000;

export interface KeyView {
  id: string;
  name: string | null;
  prefix: string;
  rpm: number;
  /** What the gateway enforces: `rpm` capped by the organization's RPM ceiling. */
  rpm_effective: number;
  created: string;
  /** The UTC day of the key's latest request within the kept metadata, or null. */
  last_used_day: string | null;
  state: KeyState;
  revoked_at: string | null;
  /** When the key stops working (a set expiry, or a rotation's grace end); null: never. */
  expires_at: string | null;
  /** The key that replaced it by a rotation, if any. */
  rotated_to: string | null;
}

/** The organization's RPM ceiling (Infinity: none), which caps every key's rpm. */
async function rpmCeiling(deps: DashboardDeps, orgId: string): Promise<number> {
  return (await deps.control.getOrgSettings(orgId)).rpm_ceiling ?? Infinity;
}

export async function listKeys(deps: DashboardDeps, access: OrgAccess): Promise<KeyView[]> {
  const keys = await deps.store.listApiKeys(access.org.id);
  const ceiling = await rpmCeiling(deps, access.org.id);
  const lastUsed = new Map<string, string>();
  const now = deps.now();
  const since = new Date(now - deps.config.retentionDays * 86_400_000);
  const rows = await deps.control.requestsBetween(
    access.org.id,
    since,
    new Date(now + 60_000),
    LAST_USED_SCAN,
  );
  for (const r of rows) {
    if (!lastUsed.has(r.key_id)) lastUsed.set(r.key_id, utcDay(Date.parse(r.created)));
  }
  return keys
    .map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      rpm: k.rpm,
      rpm_effective: Math.min(k.rpm, ceiling),
      created: k.created,
      last_used_day: lastUsed.get(k.id) ?? null,
      state: keyState(k, now),
      revoked_at: k.revoked_at,
      expires_at: k.expires_at ?? null,
      rotated_to: k.rotated_to ?? null,
    }))
    .sort((a, b) => b.created.localeCompare(a.created));
}

export interface CreatedKey {
  id: string;
  name: string;
  rpm: number;
  prefix: string;
  created: string;
  expires_at: string | null;
  /** The full key: in this answer only, never again. */
  key: string;
}

export async function createKey(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  input: {
    name: string;
    rpm?: number | undefined;
    /** An ISO time with zone, a duration (`90d`), `never`, or absent. */
    expires_at?: string | null | undefined;
    /** A budget (micro-EUR) per `budget_period` (month by default); absent: none. */
    budget_micro_eur?: number | null | undefined;
    budget_period?: string | null | undefined;
  },
): Promise<CreatedKey> {
  requirePermission(access, "manage_keys", "creating API keys");
  // The name's rules are the CLI's too (accounts/api_keys.ts), checked before anything else.
  const name = keyName(input.name)!;
  const settings = await deps.control.getOrgSettings(access.org.id);
  const ceiling = settings.rpm_ceiling;
  const rpm = input.rpm ?? Math.min(deps.config.defaultRpm, ceiling ?? Infinity);
  if (!Number.isInteger(rpm) || rpm < 1) {
    throw badInput("The RPM must be a whole number of at least 1.", "rpm");
  }
  if (ceiling !== null && rpm > ceiling) {
    throw badInput(`The RPM may be at most ${ceiling} in this organization.`, "rpm");
  }
  const expiresAt = input.expires_at ? parseExpiry(input.expires_at, deps.now()) : null;
  const budget = parseKeyBudget(input.budget_micro_eur, input.budget_period);
  const { record, key } = await issueApiKey(deps.store, {
    org: access.org.id,
    name,
    rpm,
    expiresAt,
    budget,
  });
  await audit(deps, access.org.id, viewer.user.email, "key.created", record.id, {
    name,
    rpm,
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  });
  return {
    id: record.id,
    name,
    rpm,
    prefix: record.prefix,
    created: record.created,
    expires_at: expiresAt,
    key,
  };
}

export async function revokeKey(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  keyId: string,
): Promise<KeyView> {
  // An operator revokes any organization's keys (containing a breach), member or not.
  if (!can(access, "operate")) requirePermission(access, "manage_keys", "revoking API keys");
  const own = (await deps.store.listApiKeys(access.org.id)).find((k) => k.id === keyId);
  if (!own) throw notFound("API key");
  const revoked = await deps.store.revokeApiKey(keyId);
  if (!revoked) throw notFound("API key");
  if (!own.revoked) {
    await audit(deps, access.org.id, viewer.user.email, "key.revoked", keyId, {
      name: own.name,
      ...(access.role === null ? { by: "operator" } : {}),
    });
  }
  return {
    id: revoked.id,
    name: revoked.name,
    prefix: revoked.prefix,
    rpm: revoked.rpm,
    rpm_effective: Math.min(revoked.rpm, await rpmCeiling(deps, access.org.id)),
    created: revoked.created,
    last_used_day: null,
    state: "revoked",
    revoked_at: revoked.revoked_at,
    expires_at: revoked.expires_at ?? null,
    rotated_to: revoked.rotated_to ?? null,
  };
}

/** The snippets shown with a new key: curl and the OpenAI SDKs against this gateway. */
export function keySnippets(apiUrl: string, key: string, model: string) {
  const body = JSON.stringify({ model, messages: [{ role: "user", content: "Hello" }] });
  return {
    curl: `curl ${apiUrl}/v1/chat/completions \\\n  -H "Authorization: Bearer ${key}" \\\n` +
      `  -H "Content-Type: application/json" \\\n  -d '${body}'`,
    python:
      `from openai import OpenAI\n\nclient = OpenAI(base_url="${apiUrl}/v1", api_key="${key}")\n` +
      `answer = client.chat.completions.create(\n    model="${model}",\n` +
      `    messages=[{"role": "user", "content": "Hello"}],\n)\nprint(answer.choices[0].message.content)`,
    typescript:
      `import OpenAI from "openai";\n\nconst client = new OpenAI({ baseURL: "${apiUrl}/v1", apiKey: "${key}" });\n` +
      `const answer = await client.chat.completions.create({\n  model: "${model}",\n` +
      `  messages: [{ role: "user", content: "Hello" }],\n});\nconsole.log(answer.choices[0].message.content);`,
  };
}
