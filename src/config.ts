/**
 * Configuration from the environment: the only reader of `Deno.env` in the gateway.
 * Variables and defaults are the operator contract's; the rest are documented additions.
 */
import { isIP } from "node:net";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Config {
  port: number;
  dashboardPort: number;
  host: string;
  kvPath: string;
  /** `postgres://…`: PostgreSQL holds all state (`kvPath` is then unused). */
  databaseUrl: string | undefined;
  /** PostgreSQL only: this instance's file of settles waiting for the database. */
  spillPath: string;
  catalogDir: string;
  logLevel: LogLevel;
  /** Requests per minute for keys created without `--rpm`. */
  defaultRpm: number;
  /** Days request metadata is kept. */
  retentionDays: number;
  /** Seconds an API-key lookup may be cached (≤ 30 so revocation bites within 30 s). */
  keyCacheSeconds: number;
  /** Minimum milliseconds between two group commits of settles and rate increments. */
  commitIntervalMs: number;
  /** Milliseconds a key's gate snapshot (rate buckets, balance) may be reused. */
  gateRefreshMs: number;
  /** Milliseconds a gate snapshot or a key lookup may still be served while the store fails. */
  staleServeMs: number;
  /** Milliseconds of a process's lease; its open admissions are settled by others after it. */
  instanceLeaseMs: number;
  /**
   * Milliseconds a store call on the request path may take before the store is taken for away
   * (the circuit opens: caches and the last gate snapshots serve, probed every second).
   */
  storeDeadlineMs: number;
  /** Milliseconds of upstream silence after which a stream is cut. */
  streamIdleMs: number;
  /**
   * Milliseconds between a stream's checkpoints: its completion tokens so far ride the next
   * group commit, so a process killed mid-stream bills all but at most this interval's tokens.
   */
  streamCheckpointMs: number;
  /** Concurrent transcriptions per instance, and how long a request waits for a slot. */
  transcriptionSlots: number;
  transcriptionWaitMs: number;
  /** Milliseconds a whole transcription upload may take. */
  uploadDeadlineMs: number;
  /**
   * Dashboard: peers (IPs, CIDRs) whose `X-Forwarded-For` names the client (sign-in
   * throttling); empty = the connecting address is the client.
   */
  trustedProxies: readonly string[];
  /** Dashboard: public origin (links, CSRF origin check); unset = its own listening URL. */
  dashboardUrl: string | undefined;
  /** Dashboard: session cookie `Secure` + `__Host-` prefix (off only for plain-HTTP hosts). */
  dashboardSecureCookie: boolean;
  /** Dashboard: a session ends after this many idle minutes, and at most after these hours. */
  sessionIdleMinutes: number;
  sessionMaxHours: number;
  /** Dashboard: scrypt cost as log2(N) (r = 8, p = 1). */
  passwordScryptLogN: number;
  /** Outgoing mail (password-reset links); undefined = Sovra sends no e-mail. */
  smtp: SmtpConfig | undefined;
  /**
   * `SOVRA_SECRET_KEY`: the instance key (≥ 32 bytes) that seals secrets the gateway must read
   * back (TOTP enrolments) at rest; undefined = they are stored as they are.
   */
  secretKey: Uint8Array | undefined;
  /** Shutdown: ms readiness is unready before the listener stops accepting. */
  drainNoticeMs: number;
  /** Shutdown: ms open requests and streams may take to end before streams are cut. */
  drainMs: number;
  /** Port of the separate `/metrics` server; undefined = not served. */
  metricsPort: number | undefined;
  /** Spans through Deno's OpenTelemetry (`OTEL_DENO=true`). */
  tracing: boolean;
  /**
   * A JSON body must have arrived this long after its request's headers (a request-level limit,
   * the handler's; connection-level ones are the front proxy's: docs/reliability.md).
   */
  bodyTimeoutMs: number;
  /** An upstream connection idle this long is closed (the fetch client's pool). */
  upstreamIdleMs: number;
  /** Provider base URLs on this machine or link-local are expected (the demo): no warning. */
  allowLocalUpstreams: boolean;
  /** Spend-alert webhooks may be http and point at local or private addresses (tests, on-premises). */
  webhookAllowLocal: boolean;
  /** Smart router: per cent of `metrics` decisions that explore a not-best model. */
  routerExplorationPercent: number;
  /** Smart router: milliseconds a routing policy may be cached (≤ 30 s: edits bite in 30 s). */
  routerPolicyCacheMs: number;
  /**
   * Isolates serving the request API on one port (`reusePort`), each with its own gate
   * snapshot (src/workers/). Default: the machine's cores.
   */
  workers: number;
  /** Reads an upstream credential by the env var name the catalog gives. */
  secret: (name: string) => string | undefined;
}

/** `SOVRA_SMTP_URL` and `SOVRA_SMTP_FROM`: where mail goes out, and in whose name. */
export interface SmtpConfig {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  url: string;
  /** The sender: `noreply@example.eu` or `Sovra <noreply@example.eu>`. */
  from: string;
}

const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export class ConfigError extends Error {
  override name = "ConfigError";
}

function integer(env: Record<string, string>, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be an integer ≥ ${min}, got '${raw}'.`);
  }
  return value;
}

/** `SOVRA_TRUSTED_PROXIES`: comma-separated IP addresses or CIDR blocks (v4 or v6). */
function trustedProxies(raw: string | undefined): string[] {
  const entries = (raw ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "");
  for (const entry of entries) {
    const [address = "", prefix, extra] = entry.split("/");
    const version = isIP(address);
    const bits = version === 4 ? 32 : 128;
    const validPrefix = prefix === undefined ||
      (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (version === 0 || !validPrefix || extra !== undefined) {
      throw new ConfigError(
        `SOVRA_TRUSTED_PROXIES must list IP addresses or CIDR blocks (e.g. 10.0.0.0/8, ::1), got '${entry}'.`,
      );
    }
  }
  return entries;
}

/** Base64 (standard or URL-safe alphabet) of at least 32 bytes; the value is never repeated. */
function secretKey(raw: string | undefined): Uint8Array | undefined {
  const text = raw?.trim() ?? "";
  if (text === "") return undefined;
  let bytes: Uint8Array | undefined;
  try {
    const urlSafe = /[-_]/.test(text);
    bytes = Uint8Array.fromBase64(text, urlSafe ? { alphabet: "base64url" } : {});
  } catch {
    bytes = undefined;
  }
  if (!bytes || bytes.length < 32) {
    throw new ConfigError(
      "SOVRA_SECRET_KEY must be at least 32 random bytes in base64 (make one with: openssl rand -base64 32).",
    );
  }
  return bytes;
}

/** Both variables or neither; the URL's password is never repeated in an error. */
function smtp(rawUrl: string | undefined, rawFrom: string | undefined): SmtpConfig | undefined {
  const url = rawUrl?.trim() ?? "";
  const from = rawFrom?.trim() ?? "";
  if (url === "") {
    if (from !== "") throw new ConfigError("SOVRA_SMTP_FROM is set but SOVRA_SMTP_URL is not.");
    return undefined;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !["smtp:", "smtps:"].includes(parsed.protocol) || parsed.hostname === "") {
    throw new ConfigError(
      "SOVRA_SMTP_URL must look like smtp://user:password@host:587 or smtps://user:password@host:465.",
    );
  }
  if (from === "") {
    throw new ConfigError("SOVRA_SMTP_URL is set: SOVRA_SMTP_FROM must name the sender address.");
  }
  const address = /^[^<>]*<([^<>\s]+)>$/.exec(from)?.[1] ?? from;
  if (!/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(address)) {
    throw new ConfigError(
      `SOVRA_SMTP_FROM must be an e-mail address (noreply@example.eu or "Sovra <noreply@example.eu>"), got '${from}'.`,
    );
  }
  return { url, from };
}

function databaseUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError("SOVRA_DATABASE_URL must be a postgres:// or postgresql:// URL.");
  }
  return raw;
}

/** Builds the configuration from an environment map (tests pass their own). */
export function configFromEnv(env: Record<string, string>): Config {
  const logLevel = (env.SOVRA_LOG ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`SOVRA_LOG must be one of ${LOG_LEVELS.join(", ")}, got '${logLevel}'.`);
  }
  const keyCacheSeconds = integer(env, "SOVRA_KEY_CACHE_SECONDS", 30);
  const routerPolicyCacheMs = integer(env, "SOVRA_ROUTER_POLICY_CACHE_MS", 10_000);
  if (routerPolicyCacheMs > 30_000) {
    throw new ConfigError(
      "SOVRA_ROUTER_POLICY_CACHE_MS must be at most 30000 (edits within 30 s).",
    );
  }
  const routerExplorationPercent = integer(env, "SOVRA_ROUTER_EXPLORATION_PERCENT", 5);
  if (routerExplorationPercent > 100) {
    throw new ConfigError("SOVRA_ROUTER_EXPLORATION_PERCENT must be at most 100.");
  }
  if (keyCacheSeconds > 30) {
    throw new ConfigError("SOVRA_KEY_CACHE_SECONDS must be at most 30 (revocation within 30 s).");
  }
  return {
    port: integer(env, "SOVRA_PORT", 8080),
    dashboardPort: integer(env, "SOVRA_DASHBOARD_PORT", 8081),
    host: env.SOVRA_HOST || "127.0.0.1",
    kvPath: env.SOVRA_KV || "./data/sovra.kv",
    databaseUrl: databaseUrl(env.SOVRA_DATABASE_URL),
    spillPath: env.SOVRA_SPILL_PATH || "./data/sovra-spill.jsonl",
    catalogDir: env.SOVRA_CATALOG || "./catalog",
    logLevel,
    defaultRpm: integer(env, "SOVRA_DEFAULT_RPM", 600, 1),
    retentionDays: integer(env, "SOVRA_RETENTION_DAYS", 30, 1),
    keyCacheSeconds,
    streamIdleMs: integer(env, "SOVRA_STREAM_IDLE_MS", 90_000, 1),
    streamCheckpointMs: integer(env, "SOVRA_STREAM_CHECKPOINT_MS", 5_000, 100),
    gateRefreshMs: integer(env, "SOVRA_GATE_REFRESH_MS", 1000),
    staleServeMs: integer(env, "SOVRA_STALE_SERVE_MS", 300_000),
    instanceLeaseMs: integer(env, "SOVRA_INSTANCE_LEASE_MS", 15_000),
    storeDeadlineMs: integer(env, "SOVRA_STORE_DEADLINE_MS", 1_000, 1),
    commitIntervalMs: integer(env, "SOVRA_COMMIT_INTERVAL_MS", 10),
    transcriptionSlots: integer(env, "SOVRA_TRANSCRIPTION_SLOTS", 4, 1),
    transcriptionWaitMs: integer(env, "SOVRA_TRANSCRIPTION_WAIT_MS", 10_000),
    uploadDeadlineMs: integer(env, "SOVRA_UPLOAD_DEADLINE_MS", 300_000, 1),
    dashboardUrl: env.SOVRA_DASHBOARD_URL?.replace(/\/+$/, "") || undefined,
    trustedProxies: trustedProxies(env.SOVRA_TRUSTED_PROXIES),
    dashboardSecureCookie: env.SOVRA_DASHBOARD_SECURE_COOKIE !== "false",
    sessionIdleMinutes: integer(env, "SOVRA_SESSION_IDLE_MINUTES", 30, 1),
    sessionMaxHours: integer(env, "SOVRA_SESSION_MAX_HOURS", 12, 1),
    passwordScryptLogN: integer(env, "SOVRA_PASSWORD_SCRYPT_LOG_N", 17, 10),
    smtp: smtp(env.SOVRA_SMTP_URL, env.SOVRA_SMTP_FROM),
    secretKey: secretKey(env.SOVRA_SECRET_KEY),
    drainNoticeMs: integer(env, "SOVRA_DRAIN_NOTICE_MS", 0),
    drainMs: integer(env, "SOVRA_DRAIN_MS", 25_000),
    metricsPort: env.SOVRA_METRICS_PORT ? integer(env, "SOVRA_METRICS_PORT", 0) : undefined,
    tracing: env.OTEL_DENO === "true" || env.OTEL_DENO === "1",
    bodyTimeoutMs: integer(env, "SOVRA_BODY_TIMEOUT_MS", 30_000, 1),
    upstreamIdleMs: integer(env, "SOVRA_UPSTREAM_IDLE_MS", 30_000, 1),
    allowLocalUpstreams: env.SOVRA_ALLOW_LOCAL_UPSTREAMS === "true",
    webhookAllowLocal: env.SOVRA_WEBHOOK_ALLOW_LOCAL === "true",
    routerExplorationPercent,
    routerPolicyCacheMs,
    workers: integer(env, "SOVRA_WORKERS", navigator.hardwareConcurrency || 1, 1),
    secret: (name) => env[name],
  };
}

/** `SOVRA_*` variables of the evaluation scripts (not the gateway's): not typos. */
const TOOL_VARIABLES = ["SOVRA_ROUTELLM_DIR", "SOVRA_EVAL_RESAMPLES"];

/**
 * Variables of the connection relay the process no longer has: these limits are the front
 * proxy's now (`deploy/nginx.conf`, README "Reliability"). Named in their own warning at start.
 */
export const RETIRED_VARIABLES = [
  "SOVRA_HEADER_TIMEOUT_MS",
  "SOVRA_IDLE_TIMEOUT_MS",
  "SOVRA_MAX_CONNECTIONS",
  "SOVRA_CONNECTION_GUARD",
];

/** The retired variables `env` sets. */
export function retiredSovraVariables(env: Record<string, string>): string[] {
  return RETIRED_VARIABLES.filter((name) => env[name] !== undefined);
}

/**
 * `SOVRA_*` variables the configuration does not read: most likely typos, warned about at
 * start. The known names are the ones `configFromEnv` reads, so the list never goes stale.
 */
export function unknownSovraVariables(env: Record<string, string>): string[] {
  const read = new Set<string>([...TOOL_VARIABLES, ...RETIRED_VARIABLES]);
  const tracked = new Proxy(env, {
    get(target, name) {
      if (typeof name === "string") read.add(name);
      return target[name as string];
    },
  });
  try {
    configFromEnv(tracked);
  } catch {
    // An invalid value is reported by the start itself.
  }
  return Object.keys(env).filter((name) => name.startsWith("SOVRA_") && !read.has(name)).sort();
}

/** The process environment's configuration. */
export function loadConfig(): Config {
  return configFromEnv(Deno.env.toObject());
}
