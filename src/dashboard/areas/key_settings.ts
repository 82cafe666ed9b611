/**
 * One API key's settings page (`/orgs/:org/keys/:key`): its lifetime — expiry set or removed,
 * rotation to a successor shown once while the old key keeps working for a grace period — with
 * every change audited. The rules are `accounts/key_lifecycle.ts`, the CLI's too.
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { audit } from "../audit.ts";
import { notFound } from "../errors.ts";
import {
  graceSeconds,
  type KeyState,
  keyState,
  parseExpiry,
  rotateApiKey,
  setKeyExpiry,
} from "../../accounts/key_lifecycle.ts";
import type { ApiKeyRecord } from "../../state/records.ts";
import type { CreatedKey } from "./keys.ts";
import {
  type BudgetStanding,
  keyBudgetStanding,
  parseKeyBudget,
  setKeyBudget,
} from "../../accounts/key_budget.ts";

export interface KeySettingsView {
  id: string;
  name: string | null;
  prefix: string;
  rpm: number;
  created: string;
  state: KeyState;
  expires_at: string | null;
  rotated_from: string | null;
  rotated_to: string | null;
  /** Its budget and the current period's spend (null: no budget). */
  budget: BudgetStanding | null;
}

async function viewOf(
  deps: DashboardDeps,
  record: ApiKeyRecord,
  now: number,
): Promise<KeySettingsView> {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    rpm: record.rpm,
    created: record.created,
    state: keyState(record, now),
    expires_at: record.expires_at ?? null,
    rotated_from: record.rotated_from ?? null,
    rotated_to: record.rotated_to ?? null,
    budget: await keyBudgetStanding(deps.store, record, now),
  };
}

/** The organization's key (another organization's id is 404). */
async function ownKey(deps: DashboardDeps, access: OrgAccess, keyId: string) {
  const record = await deps.store.getApiKey(keyId);
  if (!record || record.org !== access.org.id) throw notFound("API key");
  return record;
}

export async function keySettings(
  deps: DashboardDeps,
  access: OrgAccess,
  keyId: string,
): Promise<KeySettingsView> {
  return await viewOf(deps, await ownKey(deps, access, keyId), deps.now());
}

/** Sets the key's expiry (an ISO time, a duration such as `90d`) or removes it (`never`, null). */
export async function changeKeyExpiry(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  keyId: string,
  raw: string | null,
): Promise<KeySettingsView> {
  requirePermission(access, "manage_keys", "changing API keys");
  await ownKey(deps, access, keyId);
  const expiresAt = raw === null ? null : parseExpiry(raw, deps.now());
  const record = await setKeyExpiry(deps.store, access.org.id, keyId, expiresAt);
  await audit(deps, access.org.id, viewer.user.email, "key.expiry_set", keyId, {
    expires_at: expiresAt,
  });
  return await viewOf(deps, record, deps.now());
}

export interface RotatedKey {
  /** The successor, its key shown in this answer only. */
  created: CreatedKey;
  /** The old key, now expiring at the end of the grace period. */
  previous: KeySettingsView;
}

export async function rotateKey(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  keyId: string,
  input: { grace_seconds?: number | undefined; expires_at?: string | null | undefined },
): Promise<RotatedKey> {
  requirePermission(access, "manage_keys", "rotating API keys");
  await ownKey(deps, access, keyId);
  const now = deps.now();
  const rotation = await rotateApiKey(deps.store, access.org.id, keyId, {
    grace: graceSeconds(input.grace_seconds),
    now,
    expiresAt: input.expires_at ? parseExpiry(input.expires_at, now) : null,
    actor: viewer.user.email,
  });
  const { successor, previous } = rotation;
  await audit(deps, access.org.id, viewer.user.email, "key.rotated", keyId, {
    successor: successor.id,
    old_key_expires_at: previous.expires_at ?? null,
  });
  await audit(deps, access.org.id, viewer.user.email, "key.created", successor.id, {
    name: successor.name,
    rpm: successor.rpm,
    rotated_from: keyId,
  });
  return {
    created: {
      id: successor.id,
      name: successor.name ?? successor.prefix,
      rpm: successor.rpm,
      prefix: successor.prefix,
      created: successor.created,
      expires_at: successor.expires_at ?? null,
      key: rotation.key,
    },
    previous: await viewOf(deps, previous, now),
  };
}

/** Sets (an amount in micro-EUR and a period) or removes (null) the key's budget; audited. */
export async function changeKeyBudget(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer,
  keyId: string,
  input: { budget_micro_eur: number | null; budget_period?: string | null | undefined },
): Promise<KeySettingsView> {
  requirePermission(access, "manage_keys", "changing API keys");
  await ownKey(deps, access, keyId);
  const budget = parseKeyBudget(input.budget_micro_eur, input.budget_period);
  const record = await setKeyBudget(deps.store, access.org.id, keyId, budget);
  await audit(deps, access.org.id, viewer.user.email, "key.budget_set", keyId, {
    budget_micro_eur: record.budget_micro_eur ?? null,
    budget_period: record.budget_period ?? null,
  });
  return await viewOf(deps, record, deps.now());
}
