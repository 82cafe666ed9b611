/** What the dashboard needs, built once by whoever starts it (the gateway process or alone). */
import type { Config } from "../config.ts";
import type { Store } from "../state/store.ts";
import type { AccountStore } from "../state/account_store.ts";
import type { ControlStore } from "../state/control_store.ts";
import type { SsoStore } from "../state/sso_store.ts";
import type { TwoFactorStore } from "../state/two_factor_store.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { Logger } from "../log.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { MembershipRecord, Role, UserRecord } from "../state/account_records.ts";
import type { OrgView } from "../state/records.ts";

export interface DashboardDeps {
  config: Config;
  store: Store;
  accounts: AccountStore;
  control: ControlStore;
  sso: SsoStore;
  twoFactor: TwoFactorStore;
  /** Outgoing mail (password-reset links); absent without `SOVRA_SMTP_URL`. */
  mailer?: Mailer;
  /**
   * Work the dashboard leaves running after answering (a reset mail goes out after the same
   * answer as for an unknown e-mail); tests wait for it.
   */
  background: BackgroundWork;
  log: Logger;
  now: () => number;
  /** The request API's base URL, for the snippets shown with a new key. */
  apiUrl: string;
  /** The dashboard's own public origin (links in invitations, the CSRF origin check). */
  publicUrl: () => string;
  /** The current catalog (a model id for the snippets), when the gateway runs alongside. */
  catalog?: () => Catalog;
}

/** Tasks started after an answer; `idle()` resolves once none is running. */
export interface BackgroundWork {
  run(task: () => Promise<void>): void;
  idle(): Promise<void>;
}

/** The signed-in user, resolved by the session middleware. */
export interface Viewer {
  user: UserRecord;
  sessionHash: string;
  /** The memberships this session may use (SSO-required organizations need an SSO session). */
  memberships: MembershipRecord[];
  /** The identity provider the session was signed in through; null for a password. */
  ssoProvider: string | null;
  /** When the session was made (a sign-in, or a password change or 2FA enrolment renewing it). */
  sessionCreated: string;
}

/** What a request may do in one organization: the viewer's role there, or operator access. */
export interface OrgAccess {
  org: OrgView;
  /** The viewer's role; null for an operator who is not a member (read access + operator). */
  role: Role | null;
  operator: boolean;
}

export type DashEnv = { Variables: { viewer: Viewer; access: OrgAccess } };
