/**
 * `admin export` (JSON lines of the whole state on stdout, a header line first) and
 * `admin import` (those lines from stdin, into an empty store; every line is checked before
 * anything is written).
 */
import {
  EXPORT_VERSION,
  parseLine,
  type StateLine,
  type StateTransfer,
} from "../state/transfer.ts";
import { AdminError } from "./commands.ts";

export async function exportState(
  store: StateTransfer,
  backend: string,
  write: (lines: string) => Promise<void>,
): Promise<void> {
  let buffer = JSON.stringify({
    type: "sovra_export",
    version: EXPORT_VERSION,
    backend,
    exported_at: new Date().toISOString(),
  }) + "\n";
  for await (const line of store.exportState()) {
    buffer += JSON.stringify(line) + "\n";
    if (buffer.length > 64 * 1024) {
      await write(buffer);
      buffer = "";
    }
  }
  await write(buffer);
}

export async function importState(
  store: StateTransfer,
  text: string,
): Promise<{ imported: Record<StateLine["type"], number> }> {
  const lines: StateLine[] = [];
  const imported: Record<StateLine["type"], number> = {
    org: 0,
    credits: 0,
    api_key: 0,
    request: 0,
    usage_day: 0,
    org_policy: 0,
    key_policy: 0,
    policy_audit: 0,
    user: 0,
    membership: 0,
    ledger: 0,
    audit: 0,
    org_settings: 0,
    routing_policy: 0,
    sso_provider: 0,
    sso_binding: 0,
    sso_identity: 0,
    sso_managed: 0,
    totp: 0,
    alert_settings: 0,
  };
  let header = false;
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    let parsed;
    try {
      parsed = parseLine(raw, i + 1);
    } catch (error) {
      throw new AdminError((error as Error).message);
    }
    if (parsed === "header") {
      header = true;
      return;
    }
    lines.push(parsed);
    imported[parsed.type]++;
  });
  if (!header) throw new AdminError("Not an export: the sovra_export header line is missing.");
  if (!(await store.isEmpty())) {
    throw new AdminError(
      "The target store already holds organizations: import needs an empty one.",
    );
  }
  await store.importLines(lines);
  return { imported };
}
