/** `deno task admin --help`: the command table (the README's, kept next to the commands). */
export const ADMIN_USAGE = `Usage: deno task admin <command> [flags]

Works on the gateway's state: SOVRA_KV (default ./data/sovra.kv), or PostgreSQL when
SOVRA_DATABASE_URL is set. Prints one JSON object, or JSON lines for listings; errors as
{"error": …} on stderr with exit code 1.

  org create --name NAME [--credits-micro-eur N]   create an organization (with credit)
  org show --org ID                                an organization's balance and totals
  org list                                         all organizations (JSON lines)
  org suspend --org ID [--reason TEXT]             its keys get 403 organization_suspended (≤ 30 s)
  org restore --org ID                             its keys work again (≤ 30 s)
  credits topup --org ID --micro-eur N             add credit
  credits correct --org ID --micro-eur -N --reason TEXT [--grant LEDGER_ID]
                                                   a compensating ledger entry (N may be
                                                   negative or positive; the grant is kept)
  key create --org ID [--rpm N] [--name NAME] [--expires-at T] [--budget N --period P]
                                                   a new API key (shown only this once); T: an
                                                   ISO time with zone, a duration (90d, 12h) or never;
                                                   N micro-EUR per P: day|week|month|total (UTC)
  key list --org ID                                an organization's keys, never the key itself
  key revoke --id ID                               revoke any organization's key (within 30 s)
  key rotate --id ID [--grace-seconds N] [--expires-at T]
                                                   a successor key (shown once, same name, rpm and
                                                   narrowing); the old key expires after N s
                                                   (default 86400, at most 30 days)
  key update --id ID [--expires-at T] [--budget N|off [--period P]]
                                                   set or remove (never, off) a key's expiry, budget
  requests --org ID [--limit N]                    request metadata, newest first
  usage --org ID [--day YYYY-MM-DD]                one day's aggregates
  user create --email E [--org ID --role R] [--operator]
                                                   a dashboard user; prints a one-time
                                                   set-password link (24 h); R: owner|admin|viewer
  user list [--org ID]                             users (with --org: its members and roles)
  user remove --email E | --id ID                  delete a user (not an org's last owner)
  user reset --email E                             a one-time set-password link (24 h) for an
                                                   existing user; older links stop working
  user remove-2fa --email E                        turn off a user's two-factor sign-in
  policy show --org ID [--key ID]                  the organization policy (and a key's narrowing)
  policy set --org ID [--key ID] [--sovereignty any|strict_only] [--block-provider P]...
      [--unblock-provider P]... [--zdr-only true|false] [--guardrail off|flag|block]
      [--allowed-models M1,M2|all]                 change it (within 30 s on every gateway)
  migrate                                          apply pending schema migrations
  export                                           the whole state as JSON lines on stdout
  import                                           an export from stdin, into an empty store
  routing create --org ID --id SLUG --pool M[,M…] [--strategy auto|metrics|ordered]
         [--threshold 1..10] [--name N] [--weights ttft=1,error_rate=1] [--sticky-seconds S]
                                                   create or replace a smart-router policy
  alerts show --org ID                             an organization's spend alerts (never the secret)
  alerts set --org ID [--webhook-url U|off] [--email E|off] [--balance-below-micro-eur N|off]
      [--daily-spend-above-micro-eur N|off] [--key-budget-percents 80,100|off]
                                                   change them (gateways apply it within 30 s)
  alerts secret --org ID                           a new webhook signing secret (shown only once)
  alerts deliveries --org ID [--limit N]           the alert delivery log, newest first
  routing list --org ID | routing show --org ID --id SLUG | routing delete --org ID --id SLUG
  catalog check                                    the catalog (SOVRA_CATALOG) against the provider
                                                   schemas, offline: exit 1 on problems
  catalog probe [--provider P]                     each provider's model list and one minimal
                                                   request per route, with the real credentials
                                                   (JSON lines); exit 1 if any fails
  sso provider add --id SLUG --issuer URL --client-id ID --client-secret-env VAR
         --redirect-url URL [--name LABEL] [--scopes "openid email profile"]
         [--groups-claim groups] [--email-verified-claim email_verified]
                                                   an OpenID Connect provider (the secret
                                                   stays in VAR); redirect URL: <dashboard>/sso/callback
  sso provider list | sso provider remove --id SLUG
  sso bind --org ID --provider SLUG [--domain example.eu=ROLE]... [--group NAME=ROLE]...
         [--require-sso true|false]                 an organization's provider and role rules
  sso show --org ID | sso unbind --org ID

Amounts are integers in micro-EUR (1 EUR = 1,000,000).`;

/** True when the arguments ask for help rather than a command. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.length === 0 || args[0] === "help" || args.includes("--help") ||
    args.includes("-h");
}
