/**
 * The accounts area (users, memberships, invitations, sessions, set-password tokens, failed
 * logins) on
 * PostgreSQL. The invariants the KV backend keeps with version checks are transactions here:
 * an organization's membership rows are locked (`for update`) before a change that must leave
 * it an owner, so two concurrent demotions cannot both pass.
 */
import type { Db } from "./connect.ts";
import type { AccountStore, InvitationOutcome, MembershipChange } from "../account_store.ts";
import type {
  InvitationRecord,
  MembershipRecord,
  PasswordTokenRecord,
  Role,
  SessionRecord,
  UserRecord,
} from "../account_records.ts";

interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  operator: boolean;
  created: Date;
  password_changed_at: Date | null;
}

interface MemberRow {
  org_id: string;
  user_id: string;
  role: Role;
  created: Date;
}

interface SessionRow {
  hash: string;
  user_id: string;
  created: Date;
  last_seen: Date;
  expires: Date;
  sso_provider: string | null;
}

interface TokenRow {
  hash: string;
  user_id: string;
  created: Date;
  expires: Date;
}

interface InvitationRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: string;
  created: Date;
  expires: Date;
}

const iso = (d: Date) => d.toISOString();

const invitation = (r: InvitationRow): InvitationRecord => ({
  id: r.id,
  org: r.org_id,
  email: r.email,
  role: r.role,
  token_hash: r.token_hash,
  invited_by: r.invited_by,
  created: iso(r.created),
  expires: iso(r.expires),
});

const user = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  password_hash: r.password_hash,
  operator: r.operator,
  created: iso(r.created),
  password_changed_at: r.password_changed_at ? iso(r.password_changed_at) : null,
});

const member = (r: MemberRow): MembershipRecord => ({
  org: r.org_id,
  user: r.user_id,
  role: r.role,
  created: iso(r.created),
});

const session = (r: SessionRow): SessionRecord => ({
  hash: r.hash,
  user: r.user_id,
  created: iso(r.created),
  last_seen: iso(r.last_seen),
  expires: iso(r.expires),
  ...(r.sso_provider === null ? {} : { sso_provider: r.sso_provider }),
});

const token = (r: TokenRow): PasswordTokenRecord => ({
  hash: r.hash,
  user: r.user_id,
  created: iso(r.created),
  expires: iso(r.expires),
});

export function pgAccountStore(sql: Db): AccountStore {
  return {
    async createUser(u) {
      const rows = await sql`
        insert into sovra_users (id, email, password_hash, operator, created, password_changed_at)
        values (${u.id}, ${u.email}, ${u.password_hash}, ${u.operator}, ${u.created},
          ${u.password_changed_at})
        on conflict do nothing returning id`;
      return rows.length > 0;
    },
    async getUser(userId) {
      const [row] = await sql<UserRow[]>`select * from sovra_users where id = ${userId}`;
      return row ? user(row) : undefined;
    },
    async findUserByEmail(email) {
      const [row] = await sql<UserRow[]>`select * from sovra_users where email = ${email}`;
      return row ? user(row) : undefined;
    },
    async listUsers() {
      return (await sql<UserRow[]>`select * from sovra_users order by id`).map(user);
    },
    async setPassword(userId, passwordHash, at) {
      return await sql.begin(async (tx) => {
        const rows = await tx`
          update sovra_users set password_hash = ${passwordHash}, password_changed_at = ${at}
          where id = ${userId} returning id`;
        if (rows.length === 0) return false;
        await tx`delete from sovra_sessions where user_id = ${userId}`;
        await tx`delete from sovra_password_tokens where user_id = ${userId}`;
        return true;
      });
    },
    async deleteUser(userId): Promise<MembershipChange> {
      return await sql.begin(async (tx) => {
        const [found] = await tx`select id from sovra_users where id = ${userId} for update`;
        if (!found) return "not_found";
        // Lock every organization the user belongs to, in id order, then look for sole owners.
        const members = await tx<MemberRow[]>`
          select * from sovra_memberships
          where org_id in (select org_id from sovra_memberships where user_id = ${userId})
          order by org_id, user_id for update`;
        const owned = members.filter((m) => m.user_id === userId && m.role === "owner");
        for (const m of owned) {
          const owners = members.filter((o) => o.org_id === m.org_id && o.role === "owner");
          if (owners.length === 1) return "last_owner";
        }
        await tx`delete from sovra_memberships where user_id = ${userId}`;
        await tx`delete from sovra_sessions where user_id = ${userId}`;
        await tx`delete from sovra_password_tokens where user_id = ${userId}`;
        await tx`delete from sovra_users where id = ${userId}`;
        return "changed";
      });
    },
    async getMembership(orgId, userId) {
      const [row] = await sql<MemberRow[]>`
        select * from sovra_memberships where org_id = ${orgId} and user_id = ${userId}`;
      return row ? member(row) : undefined;
    },
    async listMembershipsOfUser(userId) {
      return (await sql<MemberRow[]>`
        select * from sovra_memberships where user_id = ${userId} order by org_id`).map(member);
    },
    async listMembersOfOrg(orgId) {
      return (await sql<MemberRow[]>`
        select * from sovra_memberships where org_id = ${orgId} order by user_id`).map(member);
    },
    async addMembership(m) {
      const rows = await sql`
        insert into sovra_memberships (org_id, user_id, role, created)
        values (${m.org}, ${m.user}, ${m.role}, ${m.created})
        on conflict do nothing returning org_id`;
      return rows.length > 0;
    },
    async changeMembership(orgId, userId, role): Promise<MembershipChange> {
      return await sql.begin(async (tx) => {
        const members = await tx<MemberRow[]>`
          select * from sovra_memberships where org_id = ${orgId} order by user_id for update`;
        const target = members.find((m) => m.user_id === userId);
        if (!target) return "not_found";
        const owners = members.filter((m) => m.role === "owner");
        if (target.role === "owner" && role !== "owner" && owners.length === 1) {
          return "last_owner";
        }
        if (role === null) {
          await tx`delete from sovra_memberships where org_id = ${orgId} and user_id = ${userId}`;
        } else {
          await tx`update sovra_memberships set role = ${role}
            where org_id = ${orgId} and user_id = ${userId}`;
        }
        return "changed";
      });
    },
    async putInvitation(i) {
      // Replacing the row replaces its id and token: the old link no longer finds it.
      await sql`
        insert into sovra_invitations
          (id, org_id, email, role, token_hash, invited_by, created, expires)
        values (${i.id}, ${i.org}, ${i.email}, ${i.role}, ${i.token_hash}, ${i.invited_by},
          ${i.created}, ${i.expires})
        on conflict (org_id, email) do update set id = excluded.id, role = excluded.role,
          token_hash = excluded.token_hash, invited_by = excluded.invited_by,
          created = excluded.created, expires = excluded.expires`;
    },
    async getInvitation(id) {
      const [row] = await sql<InvitationRow[]>`select * from sovra_invitations where id = ${id}`;
      return row ? invitation(row) : undefined;
    },
    async findInvitationByToken(hash) {
      const [row] = await sql<InvitationRow[]>`
        select * from sovra_invitations where token_hash = ${hash}`;
      return row ? invitation(row) : undefined;
    },
    async listInvitationsForEmail(email) {
      return (await sql<InvitationRow[]>`
        select * from sovra_invitations where email = ${email} order by id`).map(invitation);
    },
    async listInvitationsOfOrg(orgId) {
      return (await sql<InvitationRow[]>`
        select * from sovra_invitations where org_id = ${orgId} order by email`).map(invitation);
    },
    async deleteInvitation(id) {
      const rows = await sql`delete from sovra_invitations where id = ${id} returning id`;
      return rows.length > 0;
    },
    async acceptInvitation(id, userId, at): Promise<InvitationOutcome> {
      return await sql.begin(async (tx) => {
        const [row] = await tx<InvitationRow[]>`
          delete from sovra_invitations where id = ${id} returning *`;
        if (!row) return "not_found";
        const added = await tx`
          insert into sovra_memberships (org_id, user_id, role, created)
          values (${row.org_id}, ${userId}, ${row.role}, ${at})
          on conflict do nothing returning org_id`;
        return added.length > 0 ? "accepted" : "already_member";
      });
    },
    async createSession(s) {
      await sql`
        insert into sovra_sessions (hash, user_id, created, last_seen, expires, sso_provider)
        values (${s.hash}, ${s.user}, ${s.created}, ${s.last_seen}, ${s.expires},
          ${s.sso_provider ?? null})
        on conflict (hash) do update set user_id = excluded.user_id, created = excluded.created,
          last_seen = excluded.last_seen, expires = excluded.expires,
          sso_provider = excluded.sso_provider`;
    },
    async getSession(hash) {
      const [row] = await sql<SessionRow[]>`select * from sovra_sessions where hash = ${hash}`;
      return row ? session(row) : undefined;
    },
    async touchSession(hash, lastSeen) {
      // An update, never an insert: a session deleted meanwhile stays deleted.
      await sql`update sovra_sessions set last_seen = ${lastSeen} where hash = ${hash}`;
    },
    async deleteSession(hash) {
      await sql`delete from sovra_sessions where hash = ${hash}`;
    },
    async createPasswordToken(t) {
      await sql.begin(async (tx) => {
        await tx`delete from sovra_password_tokens where user_id = ${t.user}`;
        await tx`
          insert into sovra_password_tokens (hash, user_id, created, expires)
          values (${t.hash}, ${t.user}, ${t.created}, ${t.expires})
          on conflict (hash) do update set user_id = excluded.user_id,
            created = excluded.created, expires = excluded.expires`;
      });
    },
    async takePasswordToken(hash) {
      // One statement: under a race exactly one caller gets the row.
      const [row] = await sql<TokenRow[]>`
        delete from sovra_password_tokens where hash = ${hash} returning *`;
      return row ? token(row) : undefined;
    },
    async loginFailures(subject, window) {
      const [row] = await sql<{ failures: bigint }[]>`
        select failures from sovra_login_failures
        where subject = ${subject} and window_start = ${window}`;
      return row ? Number(row.failures) : 0;
    },
    async reserveLoginAttempt(subject, window, limit, ttlMs) {
      const forgetAfter = new Date(window + ttlMs).toISOString();
      // One statement: the row's lock orders concurrent reservations; a full counter updates
      // no row and returns none.
      const rows = await sql`
        insert into sovra_login_failures (subject, window_start, failures, forget_after)
        select ${subject}, ${window}, 1, ${forgetAfter} where ${limit} > 0
        on conflict (subject, window_start) do update
          set failures = sovra_login_failures.failures + 1
          where sovra_login_failures.failures < ${limit}
        returning failures`;
      return rows.length > 0;
    },
    async releaseLoginAttempt(subject, window) {
      await sql`
        update sovra_login_failures set failures = failures - 1
        where subject = ${subject} and window_start = ${window} and failures > 0`;
    },
    async addLoginFailure(subject, window, ttlMs) {
      const forgetAfter = new Date(window + ttlMs).toISOString();
      await sql`
        insert into sovra_login_failures (subject, window_start, failures, forget_after)
        values (${subject}, ${window}, 1, ${forgetAfter})
        on conflict (subject, window_start) do update
          set failures = sovra_login_failures.failures + 1`;
    },
  };
}
