/**
 * The accounts area of the state: users, organization memberships, invitations (pending
 * memberships), dashboard sessions, one-time set-password tokens and failed-login counters. Used by the dashboard and the admin
 * CLI, never by the request API's hot path. A backend (Deno KV today, PostgreSQL next) must
 * keep the semantics written on each method; times are ISO strings the caller supplies, so
 * the store never reads a clock except where a method says so.
 */
import type {
  InvitationRecord,
  MembershipRecord,
  PasswordTokenRecord,
  Role,
  SessionRecord,
  UserRecord,
} from "./account_records.ts";

/** The outcome of a membership change that must keep an owner in the organization. */
export type MembershipChange = "changed" | "not_found" | "last_owner";

/** The outcome of accepting an invitation. */
export type InvitationOutcome = "accepted" | "not_found" | "already_member";

export interface AccountStore {
  // Users. E-mails are compared lower-cased; the caller lower-cases them.
  /** Creates the user; false (and no write) when the e-mail or id is taken. */
  createUser(user: UserRecord): Promise<boolean>;
  getUser(userId: string): Promise<UserRecord | undefined>;
  findUserByEmail(email: string): Promise<UserRecord | undefined>;
  /** Every user, in no particular order. */
  listUsers(): Promise<UserRecord[]>;
  /**
   * Sets the password hash, ends every session of the user and deletes every set-password
   * token of the user, in one atomic step. False when the user does not exist.
   */
  setPassword(userId: string, passwordHash: string, at: string): Promise<boolean>;
  /**
   * Deletes the user with its memberships, sessions and tokens. "last_owner" (and nothing
   * deleted) when the user is the only owner of an organization.
   */
  deleteUser(userId: string): Promise<MembershipChange>;

  // Memberships: a user has at most one role per organization.
  getMembership(orgId: string, userId: string): Promise<MembershipRecord | undefined>;
  /** The user's memberships, by organization id. */
  listMembershipsOfUser(userId: string): Promise<MembershipRecord[]>;
  /** The organization's members, by user id. */
  listMembersOfOrg(orgId: string): Promise<MembershipRecord[]>;
  /** Adds the membership; false when the user is already a member (nothing changes). */
  addMembership(membership: MembershipRecord): Promise<boolean>;
  /**
   * Sets the member's role (`role`) or removes the member (`null`), atomically refusing a
   * change that would leave the organization without an owner ("last_owner").
   */
  changeMembership(orgId: string, userId: string, role: Role | null): Promise<MembershipChange>;

  // Invitations: addressed to an e-mail (lower-cased by the caller), at most one pending per
  // organization and e-mail. The caller checks `expires`; the store may forget one after it.
  /**
   * Records the invitation, atomically replacing a pending one for the same organization and
   * e-mail (whose id and link then no longer work).
   */
  putInvitation(invitation: InvitationRecord): Promise<void>;
  getInvitation(id: string): Promise<InvitationRecord | undefined>;
  findInvitationByToken(tokenHash: string): Promise<InvitationRecord | undefined>;
  /** The invitations addressed to the e-mail, by id. */
  listInvitationsForEmail(email: string): Promise<InvitationRecord[]>;
  /** The organization's pending invitations, by e-mail. */
  listInvitationsOfOrg(orgId: string): Promise<InvitationRecord[]>;
  /** Deletes the invitation (declined, revoked); false when it was not there. */
  deleteInvitation(id: string): Promise<boolean>;
  /**
   * In one atomic step, deletes the invitation and makes `userId` a member of its organization
   * with its role ("accepted"). "not_found" when the invitation is gone (accepted, declined,
   * replaced); "already_member" when the user is a member already (the invitation is deleted,
   * the membership kept as it was). The caller checks that the user has the invited e-mail.
   */
  acceptInvitation(id: string, userId: string, at: string): Promise<InvitationOutcome>;

  // Sessions, by the SHA-256 of their token.
  createSession(session: SessionRecord): Promise<void>;
  getSession(hash: string): Promise<SessionRecord | undefined>;
  /** Moves `last_seen`; a session deleted meanwhile stays deleted. */
  touchSession(hash: string, lastSeen: string): Promise<void>;
  deleteSession(hash: string): Promise<void>;

  // One-time set-password tokens, by the SHA-256 of their token.
  /**
   * Stores the token and deletes every other token of its user, in one atomic step: a new link
   * revokes the older ones.
   */
  createPasswordToken(token: PasswordTokenRecord): Promise<void>;
  /**
   * Returns and deletes the token in one atomic step (a token works once even under a race);
   * the caller checks `expires`.
   */
  takePasswordToken(hash: string): Promise<PasswordTokenRecord | undefined>;

  // Sign-in counters, in fixed windows (`window` is the window's start in ms): failures, and
  // attempts reserved before a password is checked.
  loginFailures(subject: string, window: number): Promise<number>;
  /** Adds one; the counter may be forgotten `ttlMs` after the window started. */
  addLoginFailure(subject: string, window: number, ttlMs: number): Promise<void>;
  /**
   * Adds one when the counter is below `limit` and answers true; else false and nothing
   * changes. Atomic: of many concurrent calls at most `limit` minus the count succeed.
   */
  reserveLoginAttempt(
    subject: string,
    window: number,
    limit: number,
    ttlMs: number,
  ): Promise<boolean>;
  /** Takes one back (never below zero): a reserved attempt that did not fail. */
  releaseLoginAttempt(subject: string, window: number, ttlMs: number): Promise<void>;
}
