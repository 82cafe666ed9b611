/** The Deno KV implementation of `AccountStore`, on the gateway's KV handle. */
import { kvKeys } from "./kv_keys.ts";
import { withLockRetry } from "../lock_retry.ts";
import type { AccountStore, InvitationOutcome, MembershipChange } from "../account_store.ts";
import type {
  InvitationRecord,
  MembershipRecord,
  PasswordTokenRecord,
  Role,
  SessionRecord,
  UserRecord,
} from "../account_records.ts";

export class KvAccountStore implements AccountStore {
  constructor(private readonly kv: Deno.Kv) {}

  createUser(user: UserRecord): Promise<boolean> {
    return withLockRetry(async () => {
      const result = await this.kv.atomic()
        .check({ key: kvKeys.user(user.id), versionstamp: null })
        .check({ key: kvKeys.userEmail(user.email), versionstamp: null })
        .set(kvKeys.user(user.id), user)
        .set(kvKeys.userEmail(user.email), user.id)
        .commit();
      return result.ok;
    });
  }

  async getUser(userId: string): Promise<UserRecord | undefined> {
    return (await this.kv.get<UserRecord>(kvKeys.user(userId))).value ?? undefined;
  }

  async findUserByEmail(email: string): Promise<UserRecord | undefined> {
    const id = await this.kv.get<string>(kvKeys.userEmail(email));
    return id.value === null ? undefined : await this.getUser(id.value);
  }

  async listUsers(): Promise<UserRecord[]> {
    const out: UserRecord[] = [];
    for await (const e of this.kv.list<UserRecord>({ prefix: kvKeys.userPrefix() })) {
      out.push(e.value);
    }
    return out;
  }

  setPassword(userId: string, passwordHash: string, at: string): Promise<boolean> {
    return withLockRetry(async () => {
      for (;;) {
        const user = await this.kv.get<UserRecord>(kvKeys.user(userId));
        if (!user.value) return false;
        const op = this.kv.atomic().check(user).set(kvKeys.user(userId), {
          ...user.value,
          password_hash: passwordHash,
          password_changed_at: at,
        });
        for (const hash of await this.#sessionHashes(userId)) {
          op.delete(kvKeys.session(hash)).delete(kvKeys.userSession(userId, hash));
        }
        await this.#deleteTokens(op, userId);
        if ((await op.commit()).ok) return true;
      }
    });
  }

  deleteUser(userId: string): Promise<MembershipChange> {
    return withLockRetry(async () => {
      for (;;) {
        const user = await this.kv.get<UserRecord>(kvKeys.user(userId));
        if (!user.value) return "not_found";
        const op = this.kv.atomic().check(user)
          .delete(kvKeys.user(userId))
          .delete(kvKeys.userEmail(user.value.email));
        for (const m of await this.listMembershipsOfUser(userId)) {
          const members = await this.#membersWithStamps(m.org);
          const owners = members.filter((e) => e.value.role === "owner");
          if (m.role === "owner" && owners.length === 1) return "last_owner";
          for (const owner of owners) op.check(owner);
          op.delete(kvKeys.member(m.org, userId)).delete(kvKeys.userOrg(userId, m.org));
        }
        for (const hash of await this.#sessionHashes(userId)) {
          op.delete(kvKeys.session(hash)).delete(kvKeys.userSession(userId, hash));
        }
        await this.#deleteTokens(op, userId);
        if ((await op.commit()).ok) return "changed";
      }
    });
  }

  async getMembership(orgId: string, userId: string): Promise<MembershipRecord | undefined> {
    return (await this.kv.get<MembershipRecord>(kvKeys.member(orgId, userId))).value ?? undefined;
  }

  async listMembershipsOfUser(userId: string): Promise<MembershipRecord[]> {
    const out: MembershipRecord[] = [];
    for await (const e of this.kv.list({ prefix: kvKeys.userOrgPrefix(userId) })) {
      const m = await this.getMembership(e.key[2] as string, userId);
      if (m) out.push(m);
    }
    return out;
  }

  async listMembersOfOrg(orgId: string): Promise<MembershipRecord[]> {
    return (await this.#membersWithStamps(orgId)).map((e) => e.value);
  }

  addMembership(m: MembershipRecord): Promise<boolean> {
    return withLockRetry(async () => {
      const result = await this.kv.atomic()
        .check({ key: kvKeys.member(m.org, m.user), versionstamp: null })
        .set(kvKeys.member(m.org, m.user), m)
        .set(kvKeys.userOrg(m.user, m.org), m.role)
        .commit();
      return result.ok;
    });
  }

  changeMembership(orgId: string, userId: string, role: Role | null): Promise<MembershipChange> {
    return withLockRetry(async () => {
      for (;;) {
        const members = await this.#membersWithStamps(orgId);
        const target = members.find((e) => e.value.user === userId);
        if (!target) return "not_found";
        const owners = members.filter((e) => e.value.role === "owner");
        const demotes = target.value.role === "owner" && role !== "owner";
        if (demotes && owners.length === 1) return "last_owner";
        const op = this.kv.atomic().check(target);
        for (const owner of owners) op.check(owner);
        if (role === null) {
          op.delete(kvKeys.member(orgId, userId)).delete(kvKeys.userOrg(userId, orgId));
        } else {
          op.set(kvKeys.member(orgId, userId), { ...target.value, role })
            .set(kvKeys.userOrg(userId, orgId), role);
        }
        if ((await op.commit()).ok) return "changed";
      }
    });
  }

  async createSession(session: SessionRecord): Promise<void> {
    const expireIn = Math.max(1, Date.parse(session.expires) - Date.now());
    await withLockRetry(() =>
      this.kv.atomic()
        .set(kvKeys.session(session.hash), session, { expireIn })
        .set(kvKeys.userSession(session.user, session.hash), true, { expireIn })
        .commit()
    );
  }

  async getSession(hash: string): Promise<SessionRecord | undefined> {
    return (await this.kv.get<SessionRecord>(kvKeys.session(hash))).value ?? undefined;
  }

  async touchSession(hash: string, lastSeen: string): Promise<void> {
    const current = await this.kv.get<SessionRecord>(kvKeys.session(hash));
    if (!current.value) return;
    const expireIn = Math.max(1, Date.parse(current.value.expires) - Date.now());
    // A concurrent logout wins: the check fails and the session stays deleted.
    await withLockRetry(() =>
      this.kv.atomic().check(current)
        .set(kvKeys.session(hash), { ...current.value, last_seen: lastSeen }, { expireIn })
        .commit()
    );
  }

  async deleteSession(hash: string): Promise<void> {
    const current = await this.getSession(hash);
    const op = this.kv.atomic().delete(kvKeys.session(hash));
    if (current) op.delete(kvKeys.userSession(current.user, hash));
    await withLockRetry(() => op.commit());
  }

  async createPasswordToken(token: PasswordTokenRecord): Promise<void> {
    const expireIn = Math.max(1, Date.parse(token.expires) - Date.now());
    await withLockRetry(async () => {
      for (;;) {
        // The user record's version orders this against a concurrent password change.
        const user = await this.kv.get(kvKeys.user(token.user));
        const op = this.kv.atomic().check(user);
        await this.#deleteTokens(op, token.user);
        op.set(kvKeys.passwordToken(token.hash), token, { expireIn })
          .set(kvKeys.userToken(token.user, token.hash), true, { expireIn });
        if ((await op.commit()).ok) return;
      }
    });
  }

  takePasswordToken(hash: string): Promise<PasswordTokenRecord | undefined> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<PasswordTokenRecord>(kvKeys.passwordToken(hash));
        if (!current.value) return undefined;
        const result = await this.kv.atomic().check(current)
          .delete(kvKeys.passwordToken(hash))
          .delete(kvKeys.userToken(current.value.user, hash))
          .commit();
        if (result.ok) return current.value;
      }
    });
  }

  async loginFailures(subject: string, window: number): Promise<number> {
    const entry = await this.kv.get<Deno.KvU64>(kvKeys.loginFailure(subject, window));
    return entry.value instanceof Deno.KvU64 ? Number(entry.value.value) : 0;
  }

  async addLoginFailure(subject: string, window: number, ttlMs: number): Promise<void> {
    const key = kvKeys.loginFailure(subject, window);
    // `sum` cannot carry an expiry: read, then set with one, under a version check.
    await withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<Deno.KvU64>(key);
        const count = current.value instanceof Deno.KvU64 ? current.value.value : 0n;
        const result = await this.kv.atomic().check(current)
          .set(key, new Deno.KvU64(count + 1n), { expireIn: ttlMs })
          .commit();
        if (result.ok) return;
      }
    });
  }

  putInvitation(inv: InvitationRecord): Promise<void> {
    const expireIn = Math.max(1, Date.parse(inv.expires) - Date.now());
    return withLockRetry(async () => {
      for (;;) {
        const slot = await this.kv.get<string>(kvKeys.invitationSlot(inv.org, inv.email));
        const op = this.kv.atomic().check(slot);
        const old = slot.value === null ? undefined : await this.getInvitation(slot.value);
        if (old) this.#deleteInvitationKeys(op, old);
        op.set(kvKeys.invitation(inv.id), inv, { expireIn })
          .set(kvKeys.invitationSlot(inv.org, inv.email), inv.id, { expireIn })
          .set(kvKeys.invitationToken(inv.token_hash), inv.id, { expireIn })
          .set(kvKeys.emailInvitation(inv.email, inv.id), true, { expireIn });
        if ((await op.commit()).ok) return;
      }
    });
  }

  async getInvitation(id: string): Promise<InvitationRecord | undefined> {
    return (await this.kv.get<InvitationRecord>(kvKeys.invitation(id))).value ?? undefined;
  }

  async findInvitationByToken(tokenHash: string): Promise<InvitationRecord | undefined> {
    const id = await this.kv.get<string>(kvKeys.invitationToken(tokenHash));
    return id.value === null ? undefined : await this.getInvitation(id.value);
  }

  async listInvitationsForEmail(email: string): Promise<InvitationRecord[]> {
    const out: InvitationRecord[] = [];
    for await (const e of this.kv.list({ prefix: kvKeys.emailInvitationPrefix(email) })) {
      const inv = await this.getInvitation(e.key[2] as string);
      if (inv) out.push(inv);
    }
    return out;
  }

  async listInvitationsOfOrg(orgId: string): Promise<InvitationRecord[]> {
    const out: InvitationRecord[] = [];
    for await (const e of this.kv.list<string>({ prefix: kvKeys.invitationSlotPrefix(orgId) })) {
      const inv = await this.getInvitation(e.value);
      if (inv) out.push(inv);
    }
    return out;
  }

  deleteInvitation(id: string): Promise<boolean> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<InvitationRecord>(kvKeys.invitation(id));
        if (!current.value) return false;
        const op = this.kv.atomic().check(current);
        this.#deleteInvitationKeys(op, current.value);
        if ((await op.commit()).ok) return true;
      }
    });
  }

  acceptInvitation(id: string, userId: string, at: string): Promise<InvitationOutcome> {
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<InvitationRecord>(kvKeys.invitation(id));
        const inv = current.value;
        if (!inv) return "not_found";
        const member = await this.kv.get<MembershipRecord>(kvKeys.member(inv.org, userId));
        const op = this.kv.atomic().check(current).check(member);
        this.#deleteInvitationKeys(op, inv);
        if (member.value === null) {
          const m: MembershipRecord = { org: inv.org, user: userId, role: inv.role, created: at };
          op.set(kvKeys.member(inv.org, userId), m).set(kvKeys.userOrg(userId, inv.org), inv.role);
        }
        if ((await op.commit()).ok) return member.value === null ? "accepted" : "already_member";
      }
    });
  }

  #deleteInvitationKeys(op: Deno.AtomicOperation, inv: InvitationRecord): void {
    op.delete(kvKeys.invitation(inv.id))
      .delete(kvKeys.invitationSlot(inv.org, inv.email))
      .delete(kvKeys.invitationToken(inv.token_hash))
      .delete(kvKeys.emailInvitation(inv.email, inv.id));
  }

  /** Adds the deletion of every set-password token of the user to `op`. */
  async #deleteTokens(op: Deno.AtomicOperation, userId: string): Promise<void> {
    for await (const e of this.kv.list({ prefix: kvKeys.userTokenPrefix(userId) })) {
      op.delete(kvKeys.passwordToken(e.key[2] as string)).delete(e.key);
    }
  }

  reserveLoginAttempt(
    subject: string,
    window: number,
    limit: number,
    ttlMs: number,
  ): Promise<boolean> {
    const key = kvKeys.loginFailure(subject, window);
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<Deno.KvU64>(key);
        const count = current.value instanceof Deno.KvU64 ? current.value.value : 0n;
        if (count >= BigInt(limit)) return false;
        const result = await this.kv.atomic().check(current)
          .set(key, new Deno.KvU64(count + 1n), { expireIn: ttlMs })
          .commit();
        if (result.ok) return true;
      }
    });
  }

  releaseLoginAttempt(subject: string, window: number, ttlMs: number): Promise<void> {
    const key = kvKeys.loginFailure(subject, window);
    return withLockRetry(async () => {
      for (;;) {
        const current = await this.kv.get<Deno.KvU64>(key);
        if (!(current.value instanceof Deno.KvU64) || current.value.value === 0n) return;
        const result = await this.kv.atomic().check(current)
          .set(key, new Deno.KvU64(current.value.value - 1n), { expireIn: ttlMs })
          .commit();
        if (result.ok) return;
      }
    });
  }

  async #membersWithStamps(orgId: string): Promise<Deno.KvEntry<MembershipRecord>[]> {
    const out: Deno.KvEntry<MembershipRecord>[] = [];
    for await (const e of this.kv.list<MembershipRecord>({ prefix: kvKeys.memberPrefix(orgId) })) {
      out.push(e);
    }
    return out;
  }

  async #sessionHashes(userId: string): Promise<string[]> {
    const out: string[] = [];
    for await (const e of this.kv.list({ prefix: kvKeys.userSessionPrefix(userId) })) {
      out.push(e.key[2] as string);
    }
    return out;
  }
}
