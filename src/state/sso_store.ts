/**
 * The single sign-on area of the state (records in `sso_records.ts`). Used by the dashboard
 * and the admin CLI only. A backend (Deno KV, PostgreSQL) keeps the semantics written on each
 * method; times are ISO strings the caller supplies.
 */
import type {
  SsoBindingRecord,
  SsoFlowRecord,
  SsoIdentityRecord,
  SsoManagedMembership,
  SsoProviderRecord,
} from "./sso_records.ts";

export type SsoProviderRemoval = "removed" | "not_found" | "bound";

export interface SsoStore {
  // Providers, configured by the operator.
  /** Creates the provider; false (and no write) when the id is taken. */
  createProvider(provider: SsoProviderRecord): Promise<boolean>;
  getProvider(id: string): Promise<SsoProviderRecord | undefined>;
  /** Every provider, by id. */
  listProviders(): Promise<SsoProviderRecord[]>;
  /** Removes the provider; "bound" (and nothing removed) while an organization binds it. */
  removeProvider(id: string): Promise<SsoProviderRemoval>;

  // Bindings: at most one per organization.
  getBinding(orgId: string): Promise<SsoBindingRecord | undefined>;
  /**
   * Creates or replaces the organization's binding; false (and no write) when its provider
   * does not exist (checked atomically with the write, so a removal cannot race it).
   */
  setBinding(binding: SsoBindingRecord): Promise<boolean>;
  /** Removes the binding (and forgets which memberships it managed); false when none. */
  deleteBinding(orgId: string): Promise<boolean>;
  /** The bindings to one provider, by organization id. */
  listBindingsOfProvider(providerId: string): Promise<SsoBindingRecord[]>;

  // Identities, by (issuer, subject).
  getIdentity(issuer: string, subject: string): Promise<SsoIdentityRecord | undefined>;
  /** Links the identity; false (and no write) when that (issuer, subject) is linked already. */
  createIdentity(identity: SsoIdentityRecord): Promise<boolean>;
  /** Moves `last_sign_in`; nothing when the identity does not exist. */
  touchIdentity(issuer: string, subject: string, at: string): Promise<void>;
  deleteIdentity(issuer: string, subject: string): Promise<void>;
  /** The user's identities, by issuer then subject. */
  listIdentitiesOfUser(userId: string): Promise<SsoIdentityRecord[]>;

  // Memberships SSO created (their role follows the provider).
  markManaged(membership: SsoManagedMembership): Promise<void>;
  getManaged(orgId: string, userId: string): Promise<SsoManagedMembership | undefined>;
  unmarkManaged(orgId: string, userId: string): Promise<void>;

  // Flows in progress, by the SHA-256 of their secret; the store may forget them at `expires`.
  createFlow(flow: SsoFlowRecord): Promise<void>;
  /** Reads a flow without using it (a link page shown again after a wrong password). */
  getFlow(hash: string): Promise<SsoFlowRecord | undefined>;
  /**
   * Returns and deletes the flow in one atomic step (a flow works once even under a race);
   * the caller checks `expires`.
   */
  takeFlow(hash: string): Promise<SsoFlowRecord | undefined>;
}
