/**
 * The admin CLI's commands, exactly as the operator contract lists them: flags parsed here,
 * the rules applied by `src/accounts/` (shared with the dashboard). Each returns what to
 * print: one JSON object, or an array printed as JSON lines. Failures throw AdminError.
 */
import type { Store } from "../state/store.ts";
import { AccountError } from "../accounts/account_error.ts";
import { createOrganization, requireOrganization, topUpCredits } from "../accounts/orgs.ts";
import { issueApiKey, listApiKeys, revokeApiKey } from "../accounts/api_keys.ts";
import {
  graceSeconds,
  parseExpiry,
  rotateApiKey,
  setKeyExpiry,
} from "../accounts/key_lifecycle.ts";
import { audit } from "../dashboard/audit.ts";
import { type KeyBudgetSetting, parseKeyBudget, setKeyBudget } from "../accounts/key_budget.ts";
import type { AuditAction, AuditEntry } from "../state/account_records.ts";
import { dailyUsage, recentRequests } from "../accounts/usage.ts";
import { grantCredits } from "../dashboard/areas/credits.ts";
import {
  correctCredits,
  restoreOrg,
  revokeAnyKey,
  suspendOrg,
} from "../dashboard/areas/operator_actions.ts";
import { GatewayError } from "../errors.ts";
import { type ControlPlane, runUserCommand, UserCommandError } from "./user_commands.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { RoutingCommandError, runRoutingCommand } from "./routing_commands.ts";
import { runSsoCommand, SsoCommandError } from "./sso_commands.ts";
import { AlertCommandError, runAlertCommand } from "./alert_commands.ts";

export class AdminError extends Error {
  override name = "AdminError";
}

export type Flags = Record<string, string | boolean | undefined>;

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new AdminError(`Missing --${name}.`);
  return value;
}

function nonNegativeInteger(flags: Flags, name: string, fallback?: bigint): bigint {
  const raw = flags[name];
  if (typeof raw !== "string") {
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

/** `--expires-at` (a time, a duration such as 90d, or `never`), if given. */
function expiryFlag(flags: Flags, now: number): string | null | undefined {
  const raw = flags["expires-at"];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") throw new AdminError("--expires-at needs a value.");
  return parseExpiry(raw, now, "expires-at");
}

/** An audit entry by actor `cli`, where the control plane is at hand (it holds the log). */
/**
 * `--budget N --period P` (N micro-EUR; P day|week|month|total, month by default) or
 * `--budget off`; undefined when neither is given.
 */
function budgetFlags(flags: Flags): KeyBudgetSetting | null | undefined {
  const raw = flags.budget;
  if (raw === undefined) {
    if (flags.period !== undefined) throw new AdminError("--period needs --budget N.");
    return undefined;
  }
  if (typeof raw !== "string") throw new AdminError("--budget needs a value (micro-EUR or off).");
  if (raw === "off" || raw === "none") return null;
  if (!/^\d+$/.test(raw)) {
    throw new AdminError(`--budget must be a whole number of micro-EUR or off, got '${raw}'.`);
  }
  const period = typeof flags.period === "string" ? flags.period : undefined;
  return parseKeyBudget(Number(raw), period);
}

async function getKeyOrFail(store: Store, id: string) {
  const record = await store.getApiKey(id);
  if (!record) throw new AdminError(`API key '${id}' does not exist.`);
  return record;
}

async function auditKey(
  args: AdminArgs,
  org: string,
  action: AuditAction,
  keyId: string,
  detail: AuditEntry["detail"],
): Promise<void> {
  if (!args.plane) return;
  await audit({ control: args.plane.control, now: Date.now }, org, "cli", action, keyId, detail);
}

export interface AdminArgs {
  command: string[];
  flags: Flags;
  defaultRpm: number;
  /** The catalog, for commands that validate model ids (`routing create`). */
  catalog?: () => Promise<Catalog>;
  plane?: ControlPlane;
  /** Environment variables by name (whether an SSO client secret is set). */
  secret?: (name: string) => string | undefined;
  /** Webhook URLs may be http and local (`SOVRA_WEBHOOK_ALLOW_LOCAL`). */
  webhookAllowLocal?: boolean;
  /** `SOVRA_SECRET_KEY`: signing secrets are stored sealed with it. */
  secretKey?: Uint8Array | undefined;
}

export async function runAdminCommand(
  store: Store,
  args: AdminArgs,
): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  try {
    return await runCommand(store, args);
  } catch (error) {
    if (error instanceof AccountError || error instanceof GatewayError) {
      throw new AdminError(error.message);
    }
    throw error;
  }
}

/** A whole number of micro-EUR that may be negative (a correction); never zero. */
function signedInteger(flags: Flags, name: string): number {
  const raw = flags[name];
  if (typeof raw !== "string") throw new AdminError(`Missing --${name}.`);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) === 0) {
    throw new AdminError(
      `--${name} must be a non-zero integer (negative takes back), got '${raw}'.`,
    );
  }
  return Number(raw);
}

/** The operator's actions need the control plane (audit, settings, ledger). */
function planeOf(args: AdminArgs, name: string): ControlPlane {
  if (!args.plane) {
    throw new AdminError(`'${name}' needs the control-plane stores of this backend.`);
  }
  return args.plane;
}

/** Flags in, the accounts module's rules applied, the contract's output shape out. */
async function runCommand(
  store: Store,
  args: AdminArgs,
): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  const { flags } = args;
  const name = args.command.join(" ");
  if (args.command[0] === "routing" && args.command.length === 2) {
    const catalog = args.catalog ??
      (() => Promise.reject(new AdminError("No catalog to validate the pool against.")));
    return await runRoutingCommand(
      store,
      catalog,
      args.command[1]!,
      flags,
      (org) => requireOrganization(store, org),
    ).catch((error) => {
      throw error instanceof RoutingCommandError ? new AdminError(error.message) : error;
    });
  }
  if (args.command[0] === "user" && args.plane) {
    try {
      return await runUserCommand(store, args.plane, args.command.slice(1).join(" "), flags);
    } catch (error) {
      if (error instanceof UserCommandError) throw new AdminError(error.message);
      throw error;
    }
  }
  if (args.command[0] === "sso" && args.plane) {
    const flagsOf = flags as Parameters<typeof runSsoCommand>[3];
    const secret = args.secret ?? (() => undefined);
    return await runSsoCommand(store, args.plane, args.command.slice(1).join(" "), flagsOf, secret)
      .catch((error) => {
        throw error instanceof SsoCommandError ? new AdminError(error.message) : error;
      });
  }
  if (args.command[0] === "alerts" && args.command.length === 2) {
    return await runAlertCommand(store, args.command[1]!, flags, {
      allowLocal: args.webhookAllowLocal ?? false,
      control: args.plane?.control,
      secretKey: args.secretKey,
    }).catch((error) => {
      throw error instanceof AlertCommandError ? new AdminError(error.message) : error;
    });
  }
  switch (name) {
    case "org create": {
      const org = await createOrganization(store, {
        name: required(flags, "name"),
        creditsMicroEur: nonNegativeInteger(flags, "credits-micro-eur", 0n),
      });
      return { id: org.id, name: org.name, balance_micro_eur: org.balance_micro_eur };
    }
    case "org show":
      return { ...(await requireOrganization(store, required(flags, "org"))) };
    case "org list":
      return (await store.listOrgs()).map((o) => ({ ...o }));
    case "org suspend":
    case "org restore": {
      const plane = planeOf(args, name);
      const deps = { store, control: plane.control, now: Date.now };
      const org = required(flags, "org");
      return {
        ...(name === "org suspend"
          ? await suspendOrg(
            deps,
            "cli",
            org,
            typeof flags.reason === "string" ? flags.reason : null,
          )
          : await restoreOrg(deps, "cli", org)),
      };
    }
    case "credits correct": {
      const plane = planeOf(args, name);
      return await correctCredits({ store, control: plane.control, now: Date.now }, "cli", {
        org: required(flags, "org"),
        amount_micro_eur: signedInteger(flags, "micro-eur"),
        reason: required(flags, "reason"),
        corrects: typeof flags.grant === "string" ? flags.grant : null,
      });
    }
    case "credits topup": {
      const orgId = required(flags, "org");
      const amount = nonNegativeInteger(flags, "micro-eur");
      // With the control plane at hand the top-up is the dashboard's grant (a ledger line, one
      // atomic step, and the audit entry), by actor `cli`.
      const org = args.plane && amount > 0n ? await requireOrganization(store, orgId) : undefined;
      if (args.plane && org) {
        const access = { org, role: null, operator: true };
        return await grantCredits({ control: args.plane.control, now: Date.now }, access, {
          user: { email: "cli" },
        }, { amount_micro_eur: Number(amount), note: "credits topup" });
      }
      return { org: orgId, balance_micro_eur: Number(await topUpCredits(store, orgId, amount)) };
    }
    case "key create": {
      const orgId = required(flags, "org");
      const { record, key } = await issueApiKey(store, {
        org: orgId,
        name: typeof flags.name === "string" ? flags.name : null,
        rpm: Number(nonNegativeInteger(flags, "rpm", BigInt(args.defaultRpm))),
        expiresAt: expiryFlag(flags, Date.now()) ?? null,
        budget: budgetFlags(flags) ?? null,
      });
      return {
        id: record.id,
        key,
        rpm: record.rpm,
        org: orgId,
        name: record.name,
        expires_at: record.expires_at ?? null,
        budget_micro_eur: record.budget_micro_eur ?? null,
        budget_period: record.budget_period ?? null,
      };
    }
    case "key rotate": {
      const now = Date.now();
      const rotation = await rotateApiKey(store, null, required(flags, "id"), {
        grace: graceSeconds(
          flags["grace-seconds"] === undefined
            ? undefined
            : Number(nonNegativeInteger(flags, "grace-seconds")),
        ),
        now,
        expiresAt: expiryFlag(flags, now) ?? null,
        actor: "cli",
      });
      await auditKey(args, rotation.previous.org, "key.rotated", rotation.previous.id, {
        successor: rotation.successor.id,
        old_key_expires_at: rotation.previous.expires_at ?? null,
      });
      return {
        id: rotation.successor.id,
        key: rotation.key,
        rpm: rotation.successor.rpm,
        org: rotation.successor.org,
        name: rotation.successor.name,
        expires_at: rotation.successor.expires_at ?? null,
        rotated_from: rotation.previous.id,
        old_key_expires_at: rotation.previous.expires_at,
      };
    }
    case "key update": {
      const id = required(flags, "id");
      const budget = budgetFlags(flags);
      if (typeof flags["expires-at"] !== "string" && budget === undefined) {
        throw new AdminError(
          "Nothing to change: give --expires-at (a time, a duration or 'never') or --budget N|off [--period P].",
        );
      }
      let record = await getKeyOrFail(store, id);
      if (typeof flags["expires-at"] === "string") {
        record = await setKeyExpiry(store, null, id, expiryFlag(flags, Date.now()) ?? null);
        await auditKey(args, record.org, "key.expiry_set", record.id, {
          expires_at: record.expires_at ?? null,
        });
      }
      if (budget !== undefined) {
        record = await setKeyBudget(store, null, id, budget);
        await auditKey(args, record.org, "key.budget_set", record.id, {
          budget_micro_eur: record.budget_micro_eur ?? null,
          budget_period: record.budget_period ?? null,
        });
      }
      const { hash: _hash, ...listing } = record;
      return { ...listing };
    }
    case "key list":
      return (await listApiKeys(store, required(flags, "org"))).map((k) => ({ ...k }));
    case "key revoke": {
      // With the control plane at hand the revocation is the operator's (audited in the key's
      // organization, actor `cli`); any organization's key.
      const id = required(flags, "id");
      const record = args.plane
        ? await revokeAnyKey({ store, control: args.plane.control, now: Date.now }, "cli", id)
        : await revokeApiKey(store, id);
      return { id: record.id, revoked: true };
    }
    case "requests": {
      const limit = Number(nonNegativeInteger(flags, "limit", 50n));
      return (await recentRequests(store, required(flags, "org"), limit)).map((r) => ({ ...r }));
    }
    case "usage": {
      const orgId = required(flags, "org");
      const day = typeof flags.day === "string" ? flags.day : new Date().toISOString().slice(0, 10);
      return { org: orgId, day, ...(await dailyUsage(store, orgId, day)) };
    }
    default:
      throw new AdminError(
        `Unknown command '${name}'. Commands: org create|show|list|suspend|restore, credits topup|correct, key create|list|revoke|rotate|update, requests, usage, policy show|set, migrate, export, import, user create|list|remove|reset|remove-2fa, routing create|list|show|delete, alerts show|set|secret|deliveries, sso provider add|list|remove, sso bind|show|unbind; 'admin --help' shows the flags.`,
      );
  }
}
