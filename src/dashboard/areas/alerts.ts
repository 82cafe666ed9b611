/**
 * Spend alerts in the dashboard (`/orgs/:org/alerts`): the organization's thresholds and where
 * alerts go, its Standard Webhooks signing secret (made here, shown once), a test delivery and
 * the delivery log. Owners change them (like the low-balance warning); every change is audited.
 * The rules are `alerts/alert_settings.ts`, the admin CLI's too. Gateways read changed settings
 * within 30 s.
 */
import type { DashboardDeps, OrgAccess, Viewer } from "../deps.ts";
import { requirePermission } from "../access.ts";
import { audit } from "../audit.ts";
import { badInput } from "../errors.ts";
import {
  type AlertSettingsChange,
  changedAlertSettings,
  defaultAlertSettings,
  newSigningSecret,
  type PublicAlertSettings,
  publicAlertSettings,
} from "../../alerts/alert_settings.ts";
import { AlertSender, WEBHOOK_SECRETS } from "../../alerts/alert_sender.ts";
import { sealStored, secretBoxFor } from "../../util/secret_box.ts";
import type { AlertDelivery, AlertSettings, AlertStore } from "../../state/alert_store.ts";

export interface AlertsView {
  settings: PublicAlertSettings;
  deliveries: AlertDelivery[];
}

function areaOf(deps: DashboardDeps): AlertStore {
  const area = deps.store.alerts;
  if (!area) throw badInput("This gateway's store keeps no spend alerts.");
  return area;
}

async function current(deps: DashboardDeps, org: string): Promise<AlertSettings> {
  return (await areaOf(deps).getAlertSettings(org)) ?? defaultAlertSettings(org, deps.now());
}

export async function alertsView(
  deps: DashboardDeps,
  access: OrgAccess,
  limit = 50,
): Promise<AlertsView> {
  const [settings, deliveries] = await Promise.all([
    current(deps, access.org.id),
    areaOf(deps).listDeliveries(access.org.id, limit),
  ]);
  return { settings: publicAlertSettings(settings), deliveries };
}

export async function changeAlerts(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer | { user: { email: string } },
  change: AlertSettingsChange,
): Promise<PublicAlertSettings> {
  if ("memberships" in viewer) requirePermission(access, "manage_members", "changing alerts");
  const next = changedAlertSettings(await current(deps, access.org.id), change, {
    now: deps.now(),
    allowLocal: deps.config.webhookAllowLocal,
  });
  await areaOf(deps).putAlertSettings(next);
  await audit(deps, access.org.id, viewer.user.email, "alerts.changed", access.org.id, {
    webhook_url: next.webhook_url,
    balance_below_micro_eur: next.balance_below_micro_eur,
    daily_spend_above_micro_eur: next.daily_spend_above_micro_eur,
    key_budget_percents: next.key_budget_percents.join(","),
    email: next.email,
  });
  return publicAlertSettings(next);
}

/** A new signing secret (the old one stops verifying at once): returned this once. */
export async function rotateAlertSecret(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer | { user: { email: string } },
): Promise<{ secret: string; settings: PublicAlertSettings }> {
  if ("memberships" in viewer) requirePermission(access, "manage_members", "changing alerts");
  const secret = newSigningSecret();
  const next: AlertSettings = {
    ...(await current(deps, access.org.id)),
    secret: await sealStored(
      secretBoxFor(deps.config.secretKey, WEBHOOK_SECRETS),
      secret,
      access.org.id,
    ),
    updated: new Date(deps.now()).toISOString(),
  };
  await areaOf(deps).putAlertSettings(next);
  await audit(deps, access.org.id, viewer.user.email, "alerts.secret_created", access.org.id);
  return { secret, settings: publicAlertSettings(next) };
}

/**
 * Sends a `webhook.test` event now, once (no retries: the answer is shown at once), and returns
 * its delivery as logged.
 */
export async function sendTestAlert(
  deps: DashboardDeps,
  access: OrgAccess,
  viewer: Viewer | { user: { email: string } },
): Promise<AlertDelivery> {
  if ("memberships" in viewer) requirePermission(access, "manage_members", "sending alerts");
  const settings = await current(deps, access.org.id);
  if (!settings.webhook_url || !settings.secret) {
    throw badInput("Set a webhook URL and create a signing secret first.", "webhook_url");
  }
  const sender = new AlertSender({
    store: areaOf(deps),
    log: deps.log,
    allowLocal: deps.config.webhookAllowLocal,
    now: deps.now,
    retryDelaysMs: [],
    secretBox: secretBoxFor(deps.config.secretKey, WEBHOOK_SECRETS),
  });
  const [delivery] = await sender.send({ ...settings, email: null }, {
    type: "webhook.test",
    summary: "a test alert",
    data: { organization: access.org.id },
  });
  return delivery!;
}
