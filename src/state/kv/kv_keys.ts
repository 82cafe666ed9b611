/**
 * Every Deno KV key the gateway uses, in one place. Nothing else builds a key.
 *
 * Layout:
 *   ["org", orgId]                              → OrgRecord
 *   ["credit", orgId, "granted" | "spent"]      → KvU64, summed (an operator's correction sets
 *                                                  "granted" under a version check instead)
 *   ["apikey", keyId]                           → ApiKeyRecord
 *   ["apikey_hash", sha256hex]                  → keyId
 *   ["org_key", orgId, keyId]                   → true (index for listing)
 *   ["rl", minute, keyId]                       → KvU64 requests in that minute (window first,
 *                                                  so old windows are deleted by one range)
 *   ["req", orgId, requestId]                   → RequestRecord (ids sort by time)
 *   ["usage_day", orgId, "YYYY-MM-DD", field]   → KvU64 daily aggregate
 *   ["routing_policy", orgId, policyId]         → RoutingPolicyRecord (ids sort the listing)
 *   ["router_pin", pinKey]                      → { model, expires } (expireIn; router pins)
 *   ["admission", requestId]                    → AdmissionRow: the admission records of one
 *                                                  group commit, keyed by its first request, from
 *                                                  before their upstream calls to the last settle
 *                                                  (an AdmissionRecord alone: written before rows)
 *   ["admission_progress", requestId]           → AdmissionRecord: a later estimate of a listed
 *                                                  request (a long stream's checkpoint), deleted
 *                                                  with its settle or its recovery
 *   ["instance", instanceId]                    → lease end, epoch ms (expires with the lease)
 *
 * Control plane (dashboard, admin CLI; never read on the request path):
 *   ["user", userId]                            → UserRecord
 *   ["user_email", email]                       → userId (unique index)
 *   ["member", orgId, userId]                   → MembershipRecord
 *   ["user_org", userId, orgId]                 → Role (index: a user's organizations)
 *   ["session", sha256hex]                      → SessionRecord (expires with the session)
 *   ["user_session", userId, sha256hex]         → true (index: a user's sessions)
 *   ["pw_token", sha256hex]                     → PasswordTokenRecord
 *   ["user_token", userId, sha256hex]           → true (index: a user's tokens)
 *   ["login_fail", subject, windowStartMs]      → KvU64 failed logins in that window
 *   ["invitation", invitationId]                → InvitationRecord (expires with it)
 *   ["invitation_slot", orgId, email]           → invitationId (one pending per org and e-mail)
 *   ["invitation_token", sha256hex]             → invitationId (the link's token)
 *   ["email_invitation", email, invitationId]   → true (index: an e-mail's invitations)
 *   ["ledger", orgId, entryId]                  → LedgerEntry (ids sort by time)
 *   ["audit", orgId | "-", entryId]             → AuditEntry (ids sort by time)
 *   ["org_settings", orgId]                     → OrgSettings (without `suspended_at`)
 *   ["org_suspended", orgId]                    → ISO time (present while suspended)
 *   ["policy_org", orgId]                       → OrgPolicy (absent: the default policy)
 *   ["policy_key", keyId]                       → KeyPolicy (a key's narrowing)
 *   ["policy_audit", orgId, auditId]            → PolicyAuditEntry (ids sort by time)
 *   ["key_spend", keyId, period]                → KvU64, summed: the key's spend in a budget period
 *                                                 (`d:YYYY-MM-DD`, `w:<Monday>`, `m:YYYY-MM`, `t`)
 *   ["alert_settings", orgId]                   → AlertSettings (spend alerts)
 *   ["alert_claim", orgId, episode]             → epoch ms: a crossing already alerted (expires)
 *   ["alert_delivery", orgId, deliveryId]       → AlertDelivery (ids sort by time)
 *   ["alert_pending", deliveryId]               → orgId (index: deliveries still retried)
 *
 * Single sign-on (records in `sso_records.ts`):
 *   ["sso_provider", providerId]                → SsoProviderRecord
 *   ["sso_binding", orgId]                      → SsoBindingRecord
 *   ["sso_provider_org", providerId, orgId]     → true (index: the organizations binding it)
 *   ["sso_identity", issuer, subject]           → SsoIdentityRecord
 *   ["sso_user_identity", userId, issuer, sub]  → true (index: a user's identities)
 *   ["sso_managed", orgId, userId]              → SsoManagedMembership
 *   ["sso_flow", sha256hex]                     → SsoFlowRecord (expires with the flow)
 *
 * Two-factor sign-in (records in `two_factor_records.ts`):
 *   ["totp", userId]                            → TotpRecord (pending or enabled)
 *   ["signin_challenge", sha256hex]             → SignInChallengeRecord (expires with it)
 */
import type { DailyAggregate } from "../account_records.ts";

export const kvKeys = {
  org: (orgId: string) => ["org", orgId] as const,
  orgPrefix: () => ["org"] as const,
  credit: (orgId: string, side: "granted" | "spent") => ["credit", orgId, side] as const,
  creditPrefix: () => ["credit"] as const,
  apiKey: (keyId: string) => ["apikey", keyId] as const,
  apiKeyPrefix: () => ["apikey"] as const,
  apiKeyHash: (hash: string) => ["apikey_hash", hash] as const,
  orgKey: (orgId: string, keyId: string) => ["org_key", orgId, keyId] as const,
  orgKeyPrefix: (orgId: string) => ["org_key", orgId] as const,
  rate: (minute: number, keyId: string) => ["rl", minute, keyId] as const,
  ratePrefix: () => ["rl"] as const,
  request: (orgId: string, requestId: string) => ["req", orgId, requestId] as const,
  requestPrefix: (orgId: string) => ["req", orgId] as const,
  requestAllPrefix: () => ["req"] as const,
  usageDay: (orgId: string, day: string, field: UsageField) =>
    ["usage_day", orgId, day, field] as const,
  usageDayPrefix: (orgId: string, day: string) => ["usage_day", orgId, day] as const,
  usageDayAllPrefix: () => ["usage_day"] as const,
  usageOrgPrefix: (orgId: string) => ["usage_day", orgId] as const,
  user: (userId: string) => ["user", userId] as const,
  userPrefix: () => ["user"] as const,
  userEmail: (email: string) => ["user_email", email] as const,
  member: (orgId: string, userId: string) => ["member", orgId, userId] as const,
  memberPrefix: (orgId: string) => ["member", orgId] as const,
  memberAllPrefix: () => ["member"] as const,
  userOrg: (userId: string, orgId: string) => ["user_org", userId, orgId] as const,
  userOrgPrefix: (userId: string) => ["user_org", userId] as const,
  session: (hash: string) => ["session", hash] as const,
  userSession: (userId: string, hash: string) => ["user_session", userId, hash] as const,
  userSessionPrefix: (userId: string) => ["user_session", userId] as const,
  passwordToken: (hash: string) => ["pw_token", hash] as const,
  userToken: (userId: string, hash: string) => ["user_token", userId, hash] as const,
  userTokenPrefix: (userId: string) => ["user_token", userId] as const,
  loginFailure: (subject: string, window: number) => ["login_fail", subject, window] as const,
  invitation: (id: string) => ["invitation", id] as const,
  invitationSlot: (orgId: string, email: string) => ["invitation_slot", orgId, email] as const,
  invitationSlotPrefix: (orgId: string) => ["invitation_slot", orgId] as const,
  invitationToken: (hash: string) => ["invitation_token", hash] as const,
  emailInvitation: (email: string, id: string) => ["email_invitation", email, id] as const,
  emailInvitationPrefix: (email: string) => ["email_invitation", email] as const,
  ledger: (orgId: string, entryId: string) => ["ledger", orgId, entryId] as const,
  ledgerPrefix: (orgId: string) => ["ledger", orgId] as const,
  ledgerAllPrefix: () => ["ledger"] as const,
  audit: (orgId: string | null, entryId: string) => ["audit", orgId ?? "-", entryId] as const,
  auditPrefix: (orgId: string | null) => ["audit", orgId ?? "-"] as const,
  auditAllPrefix: () => ["audit"] as const,
  orgSettings: (orgId: string) => ["org_settings", orgId] as const,
  orgSettingsPrefix: () => ["org_settings"] as const,
  orgSuspended: (orgId: string) => ["org_suspended", orgId] as const,
  orgSuspendedPrefix: () => ["org_suspended"] as const,
  orgPolicy: (orgId: string) => ["policy_org", orgId] as const,
  keyPolicy: (keyId: string) => ["policy_key", keyId] as const,
  policyAudit: (orgId: string, auditId: string) => ["policy_audit", orgId, auditId] as const,
  policyAuditPrefix: (orgId: string) => ["policy_audit", orgId] as const,
  orgPolicyPrefix: () => ["policy_org"] as const,
  keyPolicyPrefix: () => ["policy_key"] as const,
  policyAuditAllPrefix: () => ["policy_audit"] as const,
  routingPolicy: (orgId: string, policyId: string) => ["routing_policy", orgId, policyId] as const,
  routingPolicyPrefix: (orgId: string) => ["routing_policy", orgId] as const,
  routingPolicyAllPrefix: () => ["routing_policy"] as const,
  routerPin: (pinKey: string) => ["router_pin", pinKey] as const,
  admission: (requestId: string) => ["admission", requestId] as const,
  admissionPrefix: () => ["admission"] as const,
  admissionProgress: (requestId: string) => ["admission_progress", requestId] as const,
  instance: (instanceId: string) => ["instance", instanceId] as const,
  instancePrefix: () => ["instance"] as const,
  ssoProvider: (id: string) => ["sso_provider", id] as const,
  ssoProviderPrefix: () => ["sso_provider"] as const,
  ssoBinding: (orgId: string) => ["sso_binding", orgId] as const,
  ssoBindingPrefix: () => ["sso_binding"] as const,
  ssoProviderOrg: (providerId: string, orgId: string) =>
    ["sso_provider_org", providerId, orgId] as const,
  ssoProviderOrgPrefix: (providerId: string) => ["sso_provider_org", providerId] as const,
  ssoIdentity: (issuer: string, subject: string) => ["sso_identity", issuer, subject] as const,
  ssoIdentityPrefix: () => ["sso_identity"] as const,
  ssoUserIdentity: (userId: string, issuer: string, subject: string) =>
    ["sso_user_identity", userId, issuer, subject] as const,
  ssoUserIdentityPrefix: (userId: string) => ["sso_user_identity", userId] as const,
  ssoManaged: (orgId: string, userId: string) => ["sso_managed", orgId, userId] as const,
  ssoManagedPrefix: (orgId: string) => ["sso_managed", orgId] as const,
  ssoManagedAllPrefix: () => ["sso_managed"] as const,
  ssoFlow: (hash: string) => ["sso_flow", hash] as const,
  keySpend: (keyId: string, period: string) => ["key_spend", keyId, period] as const,
  keySpendPrefix: () => ["key_spend"] as const,
  alertSettings: (orgId: string) => ["alert_settings", orgId] as const,
  alertSettingsPrefix: () => ["alert_settings"] as const,
  alertClaim: (orgId: string, episode: string) => ["alert_claim", orgId, episode] as const,
  alertDelivery: (orgId: string, id: string) => ["alert_delivery", orgId, id] as const,
  alertDeliveryPrefix: (orgId: string) => ["alert_delivery", orgId] as const,
  alertPending: (id: string) => ["alert_pending", id] as const,
  alertPendingPrefix: () => ["alert_pending"] as const,
  totp: (userId: string) => ["totp", userId] as const,
  totpPrefix: () => ["totp"] as const,
  signInChallenge: (hash: string) => ["signin_challenge", hash] as const,
};

/** A daily aggregate: the last part of its key. */
export type UsageField = DailyAggregate;
