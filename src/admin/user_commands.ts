/**
 * The admin CLI's account commands: `user create`, `user list`, `user remove`, `user reset`,
 * `user remove-2fa`. A user this command creates gets a one-time set-password link (24 h; the
 * token is kept only as its hash); an existing one gets no link, and with `--org` a pending
 * invitation it accepts after signing in. `user reset` is the operator's way back in for an
 * account (a new set-password link, the older ones revoked); `user remove-2fa` turns off the
 * second factor of an account that lost its phone and its recovery codes.
 */
import type { Store } from "../state/store.ts";
import type { AccountStore } from "../state/account_store.ts";
import type { ControlStore } from "../state/control_store.ts";
import type { SsoStore } from "../state/sso_store.ts";
import type { TwoFactorStore } from "../state/two_factor_store.ts";
import { createUser, publicUser } from "../dashboard/areas/accounts.ts";
import { parseRole } from "../dashboard/areas/members.ts";
import { audit, auditAccount } from "../dashboard/audit.ts";
import { operatorResetLink, ResetRefused } from "../dashboard/areas/password_reset.ts";
import { GatewayError } from "../errors.ts";
import type { Role } from "../state/account_records.ts";

export interface ControlPlane {
  accounts: AccountStore;
  control: ControlStore;
  sso: SsoStore;
  twoFactor: TwoFactorStore;
  /** The dashboard's public URL, for set-password links. */
  dashboardUrl: string;
}

type Flags = Record<string, string | boolean | undefined>;

export class UserCommandError extends Error {
  override name = "UserCommandError";
}

function text(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  return typeof v === "string" && v !== "" ? v : undefined;
}

export async function runUserCommand(
  store: Store,
  plane: ControlPlane,
  sub: string,
  flags: Flags,
): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  const deps = { ...plane, now: Date.now, publicUrl: () => plane.dashboardUrl };
  try {
    switch (sub) {
      case "create": {
        const email = text(flags, "email");
        if (!email) throw new UserCommandError("Missing --email.");
        const org = text(flags, "org");
        const rawRole = text(flags, "role");
        if ((org === undefined) !== (rawRole === undefined)) {
          throw new UserCommandError("--org and --role go together.");
        }
        let role: Role | undefined;
        if (org) {
          if (!await store.getOrg(org)) {
            throw new UserCommandError(`Organization '${org}' does not exist.`);
          }
          role = parseRole(rawRole);
        }
        const operator = flags.operator === true;
        if (!org && !operator) {
          throw new UserCommandError("Give --org ID --role R, or --operator (or both).");
        }
        const existing = await plane.accounts.findUserByEmail(email.trim().toLowerCase());
        if (existing && operator && !existing.operator) {
          throw new UserCommandError(`User '${existing.email}' exists and is not an operator.`);
        }
        const result = await createUser(deps, {
          email,
          operator,
          ...(org ? { org } : {}),
          ...(role ? { role } : {}),
          actor: "cli",
        });
        return {
          ...publicUser(result.user),
          ...(org ? { org, role } : {}),
          created_now: result.created,
          set_password_url: result.set_password_url,
          invitation: result.invitation,
        };
      }
      case "list": {
        const org = text(flags, "org");
        if (org) {
          if (!await store.getOrg(org)) {
            throw new UserCommandError(`Organization '${org}' does not exist.`);
          }
          const out = [];
          for (const m of await plane.accounts.listMembersOfOrg(org)) {
            const user = await plane.accounts.getUser(m.user);
            if (user) out.push({ ...publicUser(user), org, role: m.role });
          }
          return out;
        }
        return (await plane.accounts.listUsers()).map(publicUser);
      }
      case "remove": {
        const email = text(flags, "email");
        const id = text(flags, "id");
        const user = id
          ? await plane.accounts.getUser(id)
          : email
          ? await plane.accounts.findUserByEmail(email.trim().toLowerCase())
          : undefined;
        if (!id && !email) throw new UserCommandError("Give --email E or --id ID.");
        if (!user) throw new UserCommandError("No such user.");
        const result = await plane.accounts.deleteUser(user.id);
        if (result === "last_owner") {
          throw new UserCommandError(
            `'${user.email}' is the last owner of an organization; make someone else owner first.`,
          );
        }
        await plane.twoFactor.deleteTotp(user.id);
        await audit(deps, null, "cli", "user.removed", user.email);
        return { id: user.id, email: user.email, removed: true };
      }
      case "reset": {
        const email = text(flags, "email");
        if (!email) throw new UserCommandError("Missing --email.");
        return { ...await operatorResetLink(deps, email) };
      }
      case "remove-2fa": {
        const email = text(flags, "email");
        if (!email) throw new UserCommandError("Missing --email.");
        const user = await plane.accounts.findUserByEmail(email.trim().toLowerCase());
        if (!user) throw new UserCommandError("No such user.");
        const removed = await plane.twoFactor.deleteTotp(user.id);
        if (removed) await auditAccount(deps, user, "cli", "user.2fa_disabled", { with: "cli" });
        return { id: user.id, email: user.email, two_factor: false, removed };
      }
      default:
        throw new UserCommandError(
          `Unknown command 'user ${sub}'. Commands: user create|list|remove|reset|remove-2fa.`,
        );
    }
  } catch (error) {
    if (error instanceof GatewayError || error instanceof ResetRefused) {
      throw new UserCommandError(error.message);
    }
    throw error;
  }
}
