/**
 * The admin CLI's commands, exactly as the operator contract lists them. Each returns what
 * to print: one JSON object, or an array printed as JSON lines. Failures throw AdminError.
 */
import type { Store } from "../state/store.ts";
import { generateApiKey, hashApiKey } from "../auth/api_key_format.ts";
import { randomId } from "../ids.ts";

export class AdminError extends Error {
  override name = "AdminError";
}

export type Flags = Record<string, string | undefined>;

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (value === undefined || value === "") throw new AdminError(`Missing --${name}.`);
  return value;
}

function nonNegativeInteger(flags: Flags, name: string, fallback?: bigint): bigint {
  const raw = flags[name];
  if (raw === undefined) {
    if (fallback === undefined) throw new AdminError(`Missing --${name}.`);
    return fallback;
  }
  if (!/^\d+$/.test(raw)) {
    throw new AdminError(`--${name} must be a non-negative integer, got '${raw}'.`);
  }
  const value = BigInt(raw);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AdminError(`--${name} must be at most ${Number.MAX_SAFE_INTEGER}.`);
  }
  return value;
}

async function requireOrg(store: Store, orgId: string) {
  const org = await store.getOrg(orgId);
  if (!org) throw new AdminError(`Organization '${orgId}' does not exist.`);
  return org;
}

export async function runAdminCommand(
  store: Store,
  args: { command: string[]; flags: Flags; defaultRpm: number },
): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  const { flags } = args;
  const name = args.command.join(" ");
  switch (name) {
    case "org create": {
      const org = await store.createOrg(
        {
          id: randomId("org_", 12),
          name: required(flags, "name"),
          created: new Date().toISOString(),
        },
        nonNegativeInteger(flags, "credits-micro-eur", 0n),
      );
      return { id: org.id, name: org.name, balance_micro_eur: org.balance_micro_eur };
    }
    case "org show":
      return { ...(await requireOrg(store, required(flags, "org"))) };
    case "org list":
      return (await store.listOrgs()).map((o) => ({ ...o }));
    case "credits topup": {
      const orgId = required(flags, "org");
      await requireOrg(store, orgId);
      const amount = nonNegativeInteger(flags, "micro-eur");
      if (amount === 0n) throw new AdminError("--micro-eur must be positive.");
      const balance = await store.topUp(orgId, amount);
      return { org: orgId, balance_micro_eur: Number(balance) };
    }
    case "key create": {
      const orgId = required(flags, "org");
      await requireOrg(store, orgId);
      const rpm = Number(nonNegativeInteger(flags, "rpm", BigInt(args.defaultRpm)));
      if (rpm < 1) throw new AdminError("--rpm must be at least 1.");
      const key = generateApiKey();
      const record = await store.createApiKey({
        id: randomId("key_", 12),
        org: orgId,
        name: flags.name ?? null,
        rpm,
        hash: hashApiKey(key),
        prefix: key.slice(0, 10),
      });
      return { id: record.id, key, rpm: record.rpm, org: orgId, name: record.name };
    }
    case "key list": {
      const orgId = required(flags, "org");
      await requireOrg(store, orgId);
      return (await store.listApiKeys(orgId)).map(({ hash: _hash, ...rest }) => rest);
    }
    case "key revoke": {
      const keyId = required(flags, "id");
      const record = await store.revokeApiKey(keyId);
      if (!record) throw new AdminError(`API key '${keyId}' does not exist.`);
      return { id: record.id, revoked: true };
    }
    case "requests": {
      const orgId = required(flags, "org");
      await requireOrg(store, orgId);
      const limit = Number(nonNegativeInteger(flags, "limit", 50n));
      if (limit < 1 || limit > 1000) throw new AdminError("--limit must be between 1 and 1000.");
      return (await store.listRequests(orgId, limit)).map((r) => ({ ...r }));
    }
    case "usage": {
      const orgId = required(flags, "org");
      await requireOrg(store, orgId);
      const day = flags.day ?? new Date().toISOString().slice(0, 10);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day))) {
        throw new AdminError(`--day must be a date as YYYY-MM-DD, got '${day}'.`);
      }
      const zero = {
        requests: 0,
        cost_micro_eur: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        audio_seconds: 0,
        characters: 0,
      };
      return { org: orgId, day, ...zero, ...(await store.dailyUsage(orgId, day)) };
    }
    default:
      throw new AdminError(
        `Unknown command '${name}'. Commands: org create|show|list, credits topup, key create|list|revoke, requests, usage, migrate, export, import; 'admin --help' shows the flags.`,
      );
  }
}
