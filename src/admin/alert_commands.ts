/**
 * `alerts show|set|secret|deliveries`: an organization's spend alerts from the admin CLI, under
 * the dashboard's rules (`alerts/alert_settings.ts`). A threshold or destination given as `off`
 * (or `none`) is removed; the signing secret is printed once, by `alerts secret`.
 */
import type { Store } from "../state/store.ts";
import type { AlertSettings, AlertStore } from "../state/alert_store.ts";
import { GatewayError } from "../errors.ts";
import { requireOrganization } from "../accounts/orgs.ts";
import {
  type AlertSettingsChange,
  changedAlertSettings,
  defaultAlertSettings,
  newSigningSecret,
  publicAlertSettings,
} from "../alerts/alert_settings.ts";
import type { ControlStore } from "../state/control_store.ts";
import { audit } from "../dashboard/audit.ts";
import { WEBHOOK_SECRETS } from "../alerts/alert_sender.ts";
import { sealStored, secretBoxFor } from "../util/secret_box.ts";

export class AlertCommandError extends Error {
  override name = "AlertCommandError";
}

type Flags = Record<string, string | boolean | undefined>;

const OFF = new Set(["off", "none", ""]);

function text(flags: Flags, name: string): string | undefined {
  const raw = flags[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") throw new AlertCommandError(`--${name} needs a value.`);
  return raw.trim();
}

function amount(flags: Flags, name: string): number | null | undefined {
  const raw = text(flags, name);
  if (raw === undefined) return undefined;
  if (OFF.has(raw)) return null;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new AlertCommandError(`--${name} must be a whole number of micro-EUR or off.`);
  }
  return Number(raw);
}

function orNull(raw: string | undefined): string | null | undefined {
  return raw === undefined ? undefined : OFF.has(raw) ? null : raw;
}

export async function runAlertCommand(
  store: Store,
  sub: string,
  flags: Flags,
  options: {
    allowLocal: boolean;
    control?: Pick<ControlStore, "appendAudit"> | undefined;
    /** `SOVRA_SECRET_KEY`: the new signing secret is stored sealed with it. */
    secretKey?: Uint8Array | undefined;
  },
): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  const area: AlertStore | undefined = store.alerts;
  if (!area) throw new AlertCommandError("This store keeps no spend alerts.");
  const orgId = text(flags, "org");
  if (!orgId) throw new AlertCommandError("Missing --org.");
  await requireOrganization(store, orgId);
  const now = Date.now();
  const current = (await area.getAlertSettings(orgId)) ?? defaultAlertSettings(orgId, now);
  const save = async (next: AlertSettings, action: "alerts.changed" | "alerts.secret_created") => {
    await area.putAlertSettings(next);
    if (options.control) {
      await audit({ control: options.control, now: () => now }, orgId, "cli", action, orgId);
    }
  };
  switch (sub) {
    case "show":
      return { ...publicAlertSettings(current) };
    case "set": {
      const percents = text(flags, "key-budget-percents");
      const change: AlertSettingsChange = {};
      const webhook = orNull(text(flags, "webhook-url"));
      if (webhook !== undefined) change.webhook_url = webhook;
      const email = orNull(text(flags, "email"));
      if (email !== undefined) change.email = email;
      const below = amount(flags, "balance-below-micro-eur");
      if (below !== undefined) change.balance_below_micro_eur = below;
      const above = amount(flags, "daily-spend-above-micro-eur");
      if (above !== undefined) change.daily_spend_above_micro_eur = above;
      if (percents !== undefined) {
        change.key_budget_percents = OFF.has(percents)
          ? []
          : percents.split(",").map((p) => Number(p.trim()));
      }
      if (Object.keys(change).length === 0) {
        throw new AlertCommandError(
          "Nothing to change: give --webhook-url, --email, --balance-below-micro-eur, --daily-spend-above-micro-eur or --key-budget-percents.",
        );
      }
      let next: AlertSettings;
      try {
        next = changedAlertSettings(current, change, { now, allowLocal: options.allowLocal });
      } catch (error) {
        if (error instanceof GatewayError) throw new AlertCommandError(error.message);
        throw error;
      }
      await save(next, "alerts.changed");
      return { ...publicAlertSettings(next) };
    }
    case "secret": {
      const secret = newSigningSecret();
      const box = secretBoxFor(options.secretKey, WEBHOOK_SECRETS);
      const stored = await sealStored(box, secret, orgId);
      await save(
        { ...current, secret: stored, updated: new Date(now).toISOString() },
        "alerts.secret_created",
      );
      return { org: orgId, secret };
    }
    case "deliveries": {
      const limit = Number(text(flags, "limit") ?? "50");
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new AlertCommandError("--limit must be between 1 and 1000.");
      }
      return (await area.listDeliveries(orgId, limit)).map((d) => ({ ...d }));
    }
    default:
      throw new AlertCommandError(
        `Unknown command 'alerts ${sub}'. Commands: alerts show|set|secret|deliveries.`,
      );
  }
}
