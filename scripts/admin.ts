/**
 * `deno task admin <command>`: works on the same state as the running gateway (`SOVRA_KV`, or
 * PostgreSQL when `SOVRA_DATABASE_URL` is set; `migrate` applies the schema migrations).
 * Prints one JSON object, or JSON lines for listings; on failure a JSON `{"error": …}` on
 * stderr and exit code 1; a warning (the command succeeded) as `{"warning": …}` on stderr.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import { openKvStore } from "../src/state/kv/kv_store.ts";
import { openPgStore } from "../src/state/postgres/pg_store.ts";
import type { Store } from "../src/state/store.ts";
import type { StateTransfer } from "../src/state/transfer.ts";
import { exportState, importState } from "../src/admin/transfer_commands.ts";
import { AdminError, type Flags, runAdminCommand } from "../src/admin/commands.ts";
import { ADMIN_USAGE, wantsHelp } from "../src/admin/usage.ts";
import { controlPlaneOf } from "../src/state/kv/control_plane.ts";
import { runPolicyCommand } from "../src/admin/policy_commands.ts";
import { loadCatalog } from "../src/catalog/load.ts";
import { DIALECTS } from "../src/providers/registry.ts";
import type { Catalog } from "../src/catalog/catalog.ts";
import { checkCatalog } from "../src/admin/catalog_check.ts";
import { probeCatalog } from "../src/admin/catalog_probe.ts";
import { createAdapters } from "../src/providers/registry.ts";

/** The catalog, to validate policy values and list allowed models (absent: no validation). */
async function catalogIfAny(dir: string): Promise<Catalog | undefined> {
  try {
    return await loadCatalog(dir, DIALECTS);
  } catch {
    return undefined;
  }
}

function fail(message: string): never {
  console.error(JSON.stringify({ error: message }));
  Deno.exit(1);
}

if (wantsHelp(Deno.args)) {
  console.log(ADMIN_USAGE);
  Deno.exit(0);
}

/**
 * `credits correct --micro-eur -500`: a negative amount after a space is the flag's value (the
 * parser would take it for an option of its own), as `--micro-eur=-500` is.
 */
function joinNegativeAmounts(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const next = args[i + 1];
    if (args[i] === "--micro-eur" && next !== undefined && /^-\d+$/.test(next)) {
      out.push(`--micro-eur=${next}`);
      i++;
    } else out.push(args[i]!);
  }
  return out;
}

let parsed;
try {
  parsed = parseArgs({
    args: joinNegativeAmounts(Deno.args),
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      "credits-micro-eur": { type: "string" },
      org: { type: "string" },
      "micro-eur": { type: "string" },
      rpm: { type: "string" },
      id: { type: "string" },
      limit: { type: "string" },
      day: { type: "string" },
      email: { type: "string" },
      role: { type: "string" },
      operator: { type: "boolean" },
      key: { type: "string" },
      sovereignty: { type: "string" },
      "block-provider": { type: "string", multiple: true },
      "unblock-provider": { type: "string", multiple: true },
      "zdr-only": { type: "string" },
      guardrail: { type: "string" },
      "guardrail-remote": { type: "string" },
      "guardrail-remote-timeout-ms": { type: "string" },
      "guardrail-remote-on-error": { type: "string" },
      "allowed-models": { type: "string" },
      pool: { type: "string" },
      strategy: { type: "string" },
      threshold: { type: "string" },
      weights: { type: "string" },
      "sticky-seconds": { type: "string" },
      issuer: { type: "string" },
      "client-id": { type: "string" },
      "client-secret-env": { type: "string" },
      scopes: { type: "string" },
      "redirect-url": { type: "string" },
      "groups-claim": { type: "string" },
      "email-verified-claim": { type: "string" },
      provider: { type: "string" },
      domain: { type: "string", multiple: true },
      group: { type: "string", multiple: true },
      "require-sso": { type: "string" },
      reason: { type: "string" },
      grant: { type: "string" },
    },
  });
} catch (error) {
  fail((error as Error).message);
}

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    fail((error as Error).message);
  }
})();
const command = parsed.positionals.join(" ");
if (command === "catalog check" || command === "catalog probe") {
  await runCatalogCommand(command, parsed.values.provider);
  Deno.exit(0);
}
const creates = command === "org create" || command === "import";
const isFile = !config.databaseUrl && config.kvPath !== ":memory:" &&
  !config.kvPath.includes("://");
if (isFile && !creates) {
  try {
    await Deno.stat(config.kvPath);
  } catch {
    fail(
      `The KV file '${config.kvPath}' does not exist: set SOVRA_KV to the gateway's store (or create an organization first).`,
    );
  }
}
// Opening a PostgreSQL store applies pending migrations (under the same lock as the gateway).
const opened: Promise<
  Store & StateTransfer & { migration?: { applied: number[]; version: number } }
> = config.databaseUrl
  ? openPgStore(config.databaseUrl, { spillPath: undefined })
  : openKvStore(config.kvPath);
const dashboardUrl = config.dashboardUrl ?? `http://${config.host}:${config.dashboardPort}`;
const withPlane = (plane: ReturnType<typeof controlPlaneOf>) =>
  plane ? { plane: { ...plane, dashboardUrl } } : {};
const store = await opened.catch((error) =>
  fail(`Cannot open the ${config.databaseUrl ? "database" : "KV store"}: ${error.message}`)
);
try {
  const backend = config.databaseUrl ? "postgres" : "kv";
  const encoder = new TextEncoder();
  const stdout = async (text: string) => {
    const bytes = encoder.encode(text);
    for (let n = 0; n < bytes.length;) n += await Deno.stdout.write(bytes.subarray(n));
  };
  let result: Record<string, unknown> | Record<string, unknown>[] = [];
  if (command === "migrate") {
    result = {
      backend,
      applied: store.migration?.applied ?? [],
      version: store.migration?.version ?? 0,
    };
  } else if (command === "export") {
    await exportState(store, backend, stdout);
  } else if (command === "import") {
    result = await importState(store, await new Response(Deno.stdin.readable).text());
  } else if (command === "policy show" || command === "policy set") {
    result = await runPolicyCommand(
      store,
      command,
      parsed.values,
      await catalogIfAny(config.catalogDir),
      controlPlaneOf(store)?.control,
    );
  } else {
    result = await runAdminCommand(store, {
      command: parsed.positionals,
      flags: parsed.values as Flags,
      defaultRpm: config.defaultRpm,
      ...withPlane(controlPlaneOf(store)),
      catalog: () => loadCatalog(config.catalogDir, DIALECTS),
      secret: config.secret,
      webhookAllowLocal: config.webhookAllowLocal,
      secretKey: config.secretKey,
    });
  }
  // A warning (the command succeeded) is also told on stderr, one JSON line each.
  const warnings = Array.isArray(result) ? undefined : result.warnings;
  if (Array.isArray(warnings)) {
    for (const w of warnings) console.error(JSON.stringify({ warning: w }));
  }
  const lines = Array.isArray(result)
    ? result.map((r) => JSON.stringify(r))
    : [JSON.stringify(result)];
  if (lines.length > 0) console.log(lines.join("\n"));
  await store.close();
} catch (error) {
  await store.close().catch(() => {});
  fail(
    error instanceof AdminError
      ? error.message
      : `Admin command failed: ${(error as Error).message}`,
  );
}

/**
 * `catalog check` (offline) and `catalog probe [--provider P]` (online): they read the catalog
 * (`SOVRA_CATALOG`), not the store. The report goes to stdout; problems or failed probes exit 1.
 */
async function runCatalogCommand(command: string, provider: unknown): Promise<void> {
  let catalog: Catalog;
  try {
    catalog = await loadCatalog(config.catalogDir, DIALECTS);
  } catch (error) {
    fail(`The catalog does not load: ${(error as Error).message}`);
  }
  if (command === "catalog check") {
    const report = checkCatalog(catalog);
    for (const w of report.warnings) console.error(JSON.stringify({ warning: w }));
    console.log(JSON.stringify(report));
    if (!report.ok) fail(`catalog check: ${report.problems.length} problem(s); see "problems".`);
    return;
  }
  let lines;
  try {
    lines = await probeCatalog({
      catalog,
      adapters: createAdapters({ secret: config.secret }),
      secret: config.secret,
      ...(typeof provider === "string" ? { provider } : {}),
    });
  } catch (error) {
    fail((error as Error).message);
  }
  if (lines.length > 0) console.log(lines.map((l) => JSON.stringify(l)).join("\n"));
  const failed = lines.filter((l) => !l.ok).length;
  if (failed > 0) fail(`catalog probe: ${failed} of ${lines.length} checks failed.`);
}
