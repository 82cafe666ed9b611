/**
 * The admin CLI's single sign-on commands: `sso provider add|list|remove` (the operator's
 * identity providers) and `sso bind|show|unbind` (an organization's binding with its role
 * rules; flags left out keep their current value). The rules are the dashboard's (`dashboard/areas/sso_settings.ts`), audited with the
 * actor `cli`; the client secret stays in the variable named by `--client-secret-env`.
 */
import type { Store } from "../state/store.ts";
import type { ControlPlane } from "./user_commands.ts";
import { GatewayError } from "../errors.ts";
import {
  addProvider,
  bindProvider,
  providerView,
  removeProvider,
  unbindProvider,
} from "../dashboard/areas/sso_settings.ts";

type Flags = Record<string, string | string[] | boolean | undefined>;

export class SsoCommandError extends Error {
  override name = "SsoCommandError";
}

function text(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  return typeof v === "string" && v !== "" ? v : undefined;
}

function required(flags: Flags, name: string): string {
  const v = text(flags, name);
  if (v === undefined) throw new SsoCommandError(`Missing --${name}.`);
  return v;
}

function many(flags: Flags, name: string): string[] {
  const v = flags[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

function yesNo(flags: Flags, name: string): boolean | undefined {
  const v = text(flags, name);
  if (v === undefined) return undefined;
  if (v !== "true" && v !== "false") throw new SsoCommandError(`--${name} is true or false.`);
  return v === "true";
}

export async function runSsoCommand(
  store: Store,
  plane: ControlPlane,
  sub: string,
  flags: Flags,
  secret: (name: string) => string | undefined,
): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  const deps = { ...plane, now: Date.now };
  const org = async () => {
    const id = required(flags, "org");
    if (!await store.getOrg(id)) throw new SsoCommandError(`Organization '${id}' does not exist.`);
    return id;
  };
  try {
    switch (sub) {
      case "provider add": {
        const provider = await addProvider(deps, {
          id: required(flags, "id"),
          name: text(flags, "name"),
          issuer: required(flags, "issuer"),
          client_id: required(flags, "client-id"),
          client_secret_env: required(flags, "client-secret-env"),
          scopes: text(flags, "scopes"),
          redirect_url: required(flags, "redirect-url"),
          groups_claim: text(flags, "groups-claim"),
          email_verified_claim: text(flags, "email-verified-claim"),
        }, "cli");
        const view = providerView(provider, secret);
        return view.client_secret_set ? view : {
          ...view,
          warnings: [
            `${provider.client_secret_env} is not set here: set it where the dashboard runs.`,
          ],
        };
      }
      case "provider list":
        return (await plane.sso.listProviders()).map((p) => providerView(p, secret));
      case "provider remove": {
        const id = required(flags, "id");
        await removeProvider(deps, id, "cli");
        return { id, removed: true };
      }
      case "bind": {
        // What is not given stays as it is: `--require-sso false` alone is the break-glass
        // switch for an organization whose provider is down.
        const orgId = await org();
        const current = await plane.sso.getBinding(orgId);
        const rulesGiven = flags.domain !== undefined || flags.group !== undefined;
        const provider = text(flags, "provider") ?? current?.provider;
        if (!provider) throw new SsoCommandError("Missing --provider.");
        const keep = rulesGiven || !current || current.provider !== provider ? undefined : current;
        return {
          ...(await bindProvider(deps, orgId, {
            provider,
            domains: keep ? keep.domains.map((r) => `${r.match}=${r.role}`) : many(flags, "domain"),
            groups: keep ? keep.groups.map((r) => `${r.match}=${r.role}`) : many(flags, "group"),
            require_sso: yesNo(flags, "require-sso") ?? current?.require_sso ?? false,
          }, "cli")),
        };
      }
      case "show": {
        const orgId = await org();
        return { org: orgId, binding: (await plane.sso.getBinding(orgId)) ?? null };
      }
      case "unbind": {
        const orgId = await org();
        await unbindProvider(deps, orgId, "cli");
        return { org: orgId, unbound: true };
      }
      default:
        throw new SsoCommandError(
          `Unknown command 'sso ${sub}'. Commands: sso provider add|list|remove, sso bind|show|unbind.`,
        );
    }
  } catch (error) {
    if (error instanceof GatewayError) throw new SsoCommandError(error.message);
    throw error;
  }
}
