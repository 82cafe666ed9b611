/**
 * The control-plane areas (accounts: users, memberships, invitations, sessions, set-password
 * tokens, failed logins; control: ledger, audit, settings, usage ranges) against both backends, one
 * set of cases: the semantics each method's doc states, races included (one owner always
 * left, a set-password token taken once).
 */
import assert from "node:assert/strict";
import { kvBackend, type Opened, pgBackend } from "./control_plane_backends.ts";
import { buildRequestRecord } from "../../src/billing/settle.ts";
import { timeOrderedId } from "../../src/util/ids.ts";

const T = "2026-11-21T10:00:00.000Z";
const later = (ms: number) => new Date(Date.parse(T) + ms).toISOString();
const userRecord = (id: string, email = `${id}@example.eu`) => ({
  id,
  email,
  password_hash: null,
  operator: false,
  created: T,
  password_changed_at: null,
});

const cases: Array<[string, (o: Opened) => Promise<void>]> = [
  [
    "users: unique id and e-mail, found by either, password set ends sessions",
    async ({ areas }) => {
      const a = areas.accounts;
      assert.equal(await a.createUser(userRecord("u_1")), true);
      assert.equal(await a.createUser(userRecord("u_1", "other@example.eu")), false);
      assert.equal(await a.createUser(userRecord("u_2", "u_1@example.eu")), false);
      assert.deepEqual(await a.getUser("u_1"), userRecord("u_1"));
      assert.deepEqual(await a.findUserByEmail("u_1@example.eu"), userRecord("u_1"));
      assert.equal(await a.findUserByEmail("nobody@example.eu"), undefined);
      await a.createUser(userRecord("u_0"));
      assert.deepEqual((await a.listUsers()).map((u) => u.id).sort(), ["u_0", "u_1"]);
      const session = {
        hash: "a".repeat(64),
        user: "u_1",
        created: T,
        last_seen: T,
        expires: later(3_600_000),
      };
      await a.createSession(session);
      assert.deepEqual(await a.getSession(session.hash), session);
      await a.touchSession(session.hash, later(60_000));
      assert.equal((await a.getSession(session.hash))?.last_seen, later(60_000));
      assert.equal(await a.setPassword("u_1", "scrypt$x", later(1000)), true);
      assert.equal((await a.getUser("u_1"))?.password_hash, "scrypt$x");
      assert.equal((await a.getUser("u_1"))?.password_changed_at, later(1000));
      assert.equal(await a.getSession(session.hash), undefined);
      await a.touchSession(session.hash, later(2000));
      assert.equal(await a.getSession(session.hash), undefined);
      assert.equal(await a.setPassword("u_missing", "x", T), false);
    },
  ],
  ["memberships: one role per org, an owner always left, also under a race", async ({ areas }) => {
    const a = areas.accounts;
    for (const id of ["u_1", "u_2", "u_3"]) await a.createUser(userRecord(id));
    const m = (user: string, role: "owner" | "admin" | "viewer") => ({
      org: "org_a",
      user,
      role,
      created: T,
    });
    assert.equal(await a.addMembership(m("u_1", "owner")), true);
    assert.equal(await a.addMembership(m("u_1", "viewer")), false);
    await a.addMembership(m("u_2", "owner"));
    await a.addMembership({ ...m("u_3", "viewer"), org: "org_b" });
    assert.deepEqual(await a.getMembership("org_a", "u_1"), m("u_1", "owner"));
    assert.deepEqual((await a.listMembersOfOrg("org_a")).map((x) => x.user), ["u_1", "u_2"]);
    assert.deepEqual((await a.listMembershipsOfUser("u_3")).map((x) => x.org), ["org_b"]);
    // Two owners demote each other at once: exactly one change passes.
    const results = await Promise.all([
      a.changeMembership("org_a", "u_1", "admin"),
      a.changeMembership("org_a", "u_2", "viewer"),
    ]);
    assert.deepEqual(results.sort(), ["changed", "last_owner"]);
    const owners = (await a.listMembersOfOrg("org_a")).filter((x) => x.role === "owner");
    assert.equal(owners.length, 1);
    const owner = owners[0]!.user;
    assert.equal(await a.changeMembership("org_a", owner, null), "last_owner");
    assert.equal(await a.deleteUser(owner), "last_owner");
    assert.ok(await a.getUser(owner));
    assert.equal(await a.changeMembership("org_a", "u_9", "admin"), "not_found");
    const other = owner === "u_1" ? "u_2" : "u_1";
    assert.equal(await a.changeMembership("org_a", other, null), "changed");
    assert.equal(await a.getMembership("org_a", other), undefined);
  }],
  ["deleting a user takes memberships, sessions and tokens with it", async ({ areas }) => {
    const a = areas.accounts;
    await a.createUser(userRecord("u_1"));
    await a.createUser(userRecord("u_2"));
    await a.addMembership({ org: "org_a", user: "u_1", role: "owner", created: T });
    await a.addMembership({ org: "org_a", user: "u_2", role: "viewer", created: T });
    await a.createSession({
      hash: "b".repeat(64),
      user: "u_2",
      created: T,
      last_seen: T,
      expires: later(1e6),
    });
    await a.createPasswordToken({
      hash: "c".repeat(64),
      user: "u_2",
      created: T,
      expires: later(1e6),
    });
    assert.equal(await a.deleteUser("u_2"), "changed");
    assert.equal(await a.getUser("u_2"), undefined);
    assert.equal(await a.findUserByEmail("u_2@example.eu"), undefined);
    assert.equal(await a.getMembership("org_a", "u_2"), undefined);
    assert.equal(await a.getSession("b".repeat(64)), undefined);
    assert.equal(await a.takePasswordToken("c".repeat(64)), undefined);
    assert.equal(await a.deleteUser("u_2"), "not_found");
    assert.equal(await a.createUser(userRecord("u_2")), true);
  }],
  [
    "set-password tokens work once, even raced; failed logins count per window",
    async ({ areas }) => {
      const a = areas.accounts;
      const token = { hash: "d".repeat(64), user: "u_1", created: T, expires: later(86_400_000) };
      await a.createPasswordToken(token);
      const taken = await Promise.all(
        Array.from({ length: 5 }, () => a.takePasswordToken(token.hash)),
      );
      assert.deepEqual(taken.filter((t) => t !== undefined), [token]);
      const window = Date.parse(T);
      assert.equal(await a.loginFailures("x@example.eu", window), 0);
      await Promise.all(
        Array.from({ length: 7 }, () => a.addLoginFailure("x@example.eu", window, 900_000)),
      );
      assert.equal(await a.loginFailures("x@example.eu", window), 7);
      assert.equal(await a.loginFailures("x@example.eu", window + 900_000), 0);
      assert.equal(await a.loginFailures("y@example.eu", window), 0);
    },
  ],
  [
    "sign-in reservations: at most the limit, even raced; a release gives one back",
    async ({ areas }) => {
      const a = areas.accounts;
      const window = Date.parse(T);
      const raced = await Promise.all(
        Array.from({ length: 14 }, () => a.reserveLoginAttempt("pair:x", window, 10, 900_000)),
      );
      assert.equal(raced.filter((ok) => ok).length, 10);
      assert.equal(await a.loginFailures("pair:x", window), 10);
      await a.releaseLoginAttempt("pair:x", window, 900_000);
      assert.equal(await a.loginFailures("pair:x", window), 9);
      assert.equal(await a.reserveLoginAttempt("pair:x", window, 10, 900_000), true);
      assert.equal(await a.reserveLoginAttempt("pair:x", window, 10, 900_000), false);
      assert.equal(await a.reserveLoginAttempt("pair:x", window + 900_000, 10, 900_000), true);
      await a.releaseLoginAttempt("pair:y", window, 900_000);
      assert.equal(await a.loginFailures("pair:y", window), 0, "never below zero");
      assert.equal(await a.reserveLoginAttempt("pair:z", window, 0, 900_000), false);
    },
  ],
  [
    "set-password tokens: a new one revokes the user's older ones; a password set revokes all",
    async ({ areas }) => {
      const a = areas.accounts;
      await a.createUser(userRecord("u_1"));
      await a.createUser(userRecord("u_2"));
      const token = (c: string, user: string) => ({
        hash: c.repeat(64),
        user,
        created: T,
        expires: later(86_400_000),
      });
      await a.createPasswordToken(token("e", "u_1"));
      await a.createPasswordToken(token("f", "u_2"));
      await a.createPasswordToken(token("g", "u_1"));
      assert.equal(await a.takePasswordToken("e".repeat(64)), undefined, "revoked by the newer");
      assert.deepEqual(await a.takePasswordToken("g".repeat(64)), token("g", "u_1"));
      await a.createPasswordToken(token("h", "u_1"));
      assert.equal(await a.setPassword("u_1", "scrypt$y", later(1)), true);
      assert.equal(await a.takePasswordToken("h".repeat(64)), undefined, "revoked by the set");
      assert.deepEqual(await a.takePasswordToken("f".repeat(64)), token("f", "u_2"), "another's");
    },
  ],
  [
    "invitations: one per org and e-mail (a new one replaces it), accepted or declined once",
    async ({ areas }) => {
      const a = areas.accounts;
      await a.createUser(userRecord("u_1", "bob@example.eu"));
      const inv = (id: string, org: string, role: "owner" | "admin" | "viewer", c: string) => ({
        id,
        org,
        email: "bob@example.eu",
        role,
        token_hash: c.repeat(64),
        invited_by: "owner@example.eu",
        created: T,
        expires: later(7 * 86_400_000),
      });
      await a.putInvitation(inv("inv_1", "org_a", "viewer", "1"));
      await a.putInvitation(inv("inv_2", "org_b", "admin", "2"));
      await a.putInvitation(inv("inv_3", "org_a", "owner", "3"));
      assert.equal(await a.getInvitation("inv_1"), undefined, "replaced");
      assert.equal(await a.findInvitationByToken("1".repeat(64)), undefined, "its link too");
      assert.deepEqual(
        await a.findInvitationByToken("3".repeat(64)),
        inv("inv_3", "org_a", "owner", "3"),
      );
      assert.deepEqual(
        (await a.listInvitationsForEmail("bob@example.eu")).map((i) => i.id),
        ["inv_2", "inv_3"],
      );
      assert.deepEqual((await a.listInvitationsOfOrg("org_a")).map((i) => i.id), ["inv_3"]);
      assert.deepEqual(await a.listInvitationsForEmail("other@example.eu"), []);
      const raced = await Promise.all([
        a.acceptInvitation("inv_3", "u_1", later(5)),
        a.acceptInvitation("inv_3", "u_1", later(5)),
      ]);
      assert.deepEqual(raced.sort(), ["accepted", "not_found"]);
      assert.deepEqual(await a.getMembership("org_a", "u_1"), {
        org: "org_a",
        user: "u_1",
        role: "owner",
        created: later(5),
      });
      assert.deepEqual((await a.listMembershipsOfUser("u_1")).map((m) => m.org), ["org_a"]);
      assert.equal(await a.getInvitation("inv_3"), undefined);
      assert.deepEqual(await a.listInvitationsOfOrg("org_a"), []);
      await a.putInvitation(inv("inv_4", "org_a", "viewer", "4"));
      assert.equal(await a.acceptInvitation("inv_4", "u_1", later(6)), "already_member");
      assert.equal((await a.getMembership("org_a", "u_1"))?.role, "owner", "kept as it was");
      assert.equal(await a.deleteInvitation("inv_2"), true);
      assert.equal(await a.deleteInvitation("inv_2"), false);
      assert.equal(await a.acceptInvitation("inv_2", "u_1", later(7)), "not_found");
      assert.equal(await a.getMembership("org_b", "u_1"), undefined);
      assert.deepEqual(await a.listInvitationsForEmail("bob@example.eu"), []);
    },
  ],
  ["ledger: a grant adds to the balance and is listed newest first", async ({ store, areas }) => {
    const c = areas.control;
    await store.createOrg({ id: "org_a", name: "A", created: T }, 100n);
    const entry = (n: number, amount: number) => ({
      id: timeOrderedId("led_", Date.parse(T) + n),
      org: "org_a",
      created: later(n),
      amount_micro_eur: amount,
      actor: "ops@example.eu",
      note: n === 1 ? "welcome" : null,
    });
    const first = entry(1, 500);
    const second = entry(2, 25);
    assert.equal(await c.grantCredits(first), 600n);
    assert.equal(await c.grantCredits(second), 625n);
    assert.equal((await store.getOrg("org_a"))?.balance_micro_eur, 625);
    assert.deepEqual(await c.listLedger("org_a", 10), [second, first]);
    assert.deepEqual(await c.listLedger("org_a", 1), [second]);
    assert.deepEqual(await c.listLedger("org_b", 10), []);
  }],
  [
    "audit newest first per org (null: outside any org); settings default until set",
    async ({ areas }) => {
      const c = areas.control;
      const entry = (n: number, org: string | null) => ({
        id: timeOrderedId("aud_", Date.parse(T) + n),
        created: later(n),
        org,
        actor: "cli",
        action: "key.created" as const,
        target: "key_1",
        detail: { rpm: 60, name: null, ok: true },
      });
      const a1 = entry(1, "org_a");
      const a2 = entry(2, "org_a");
      const n1 = entry(3, null);
      for (const e of [a1, a2, n1]) await c.appendAudit(e);
      assert.deepEqual(await c.listAudit("org_a", 10), [a2, a1]);
      assert.deepEqual(await c.listAudit(null, 10), [n1]);
      assert.deepEqual(await c.listAudit("org_a", 1), [a2]);
      const unset = { require_2fa: false, suspended_at: null };
      assert.deepEqual(await c.getOrgSettings("org_a"), {
        low_balance_micro_eur: null,
        rpm_ceiling: null,
        ...unset,
      });
      await c.setOrgSettings("org_a", { low_balance_micro_eur: 1000, rpm_ceiling: 120, ...unset });
      assert.deepEqual(await c.getOrgSettings("org_a"), {
        low_balance_micro_eur: 1000,
        rpm_ceiling: 120,
        ...unset,
      });
      await c.setOrgSettings("org_a", {
        low_balance_micro_eur: null,
        rpm_ceiling: 60,
        require_2fa: true,
        suspended_at: null,
      });
      assert.deepEqual(await c.getOrgSettings("org_a"), {
        low_balance_micro_eur: null,
        rpm_ceiling: 60,
        require_2fa: true,
        suspended_at: null,
      });
    },
  ],
  [
    "usage ranges: requests in [from, to) newest first, days in [from, to] oldest first",
    async ({ store, areas }) => {
      const c = areas.control;
      await store.createOrg({ id: "org_a", name: "A", created: T }, 0n);
      const at = (ms: number) =>
        buildRequestRecord({
          id: timeOrderedId("req_", ms),
          startedAt: ms,
          org: "org_a",
          keyId: "key_a",
          user: undefined,
          endpoint: "chat",
          requestedModel: "acme/chat",
          model: { pricing: { prompt_micro_eur_per_million: 1_000_000 } } as never,
          servedModel: "acme/chat",
          provider: "sim-a",
          status: 200,
          stream: false,
          fallbacks: 0,
          promptTokens: 10,
          completionTokens: 2,
          estimated: false,
        }, ms);
      const day = 86_400_000;
      const t0 = Date.parse(T);
      const records = [at(t0 - 2 * day), at(t0 - day), at(t0), at(t0 + 1000)];
      for (const r of records) await store.settle(r);
      const inRange = await c.requestsBetween("org_a", new Date(t0 - day), new Date(t0 + 1000), 10);
      assert.deepEqual(inRange, [records[2], records[1]]);
      assert.deepEqual(
        await c.requestsBetween("org_a", new Date(t0 - 3 * day), new Date(t0 + day), 1),
        [records[3]],
      );
      const days = await c.usageDays("org_a", "2026-11-19", "2026-11-21");
      assert.deepEqual(
        days.map((d) => [d.day, d.requests, d.cost_micro_eur, d.prompt_tokens, d.audio_seconds]),
        [
          ["2026-11-19", 1, 10, 10, 0],
          ["2026-11-20", 1, 10, 10, 0],
          ["2026-11-21", 2, 20, 20, 0],
        ],
      );
      assert.deepEqual(await c.usageDays("org_a", "2026-11-22", "2026-11-30"), []);
    },
  ],
  [
    "refused requests' rows: error_code kept; a merged row counts its refused_count in the day",
    async ({ store, areas }) => {
      await store.createOrg({ id: "org_a", name: "A", created: T }, 0n);
      const t0 = Date.parse(T);
      const refused = (ms: number, extra: { errorCode: string; refusedCount?: number }) =>
        buildRequestRecord({
          id: timeOrderedId("req_", ms),
          startedAt: ms,
          endedAt: ms + 3,
          org: "org_a",
          keyId: "key_a",
          user: undefined,
          endpoint: "chat",
          requestedModel: "",
          model: undefined,
          servedModel: undefined,
          provider: undefined,
          status: 429,
          stream: false,
          fallbacks: 0,
          estimated: false,
          ...extra,
        }, ms + 60_000);
      const first = refused(t0, { errorCode: "rate_limit_exceeded" });
      const merged = refused(t0 + 1, { errorCode: "rate_limit_exceeded", refusedCount: 5 });
      assert.equal(merged.latency_ms, 3, "ended when refused, not when written");
      for (const r of [first, merged]) await store.settle(r);
      const rows = await areas.control.requestsBetween(
        "org_a",
        new Date(t0),
        new Date(t0 + 1000),
        10,
      );
      assert.deepEqual(rows, [merged, first]);
      const [day] = await areas.control.usageDays("org_a", T.slice(0, 10), T.slice(0, 10));
      assert.equal(day?.requests, 6);
      assert.equal(day?.cost_micro_eur, 0);
    },
  ],
];

/** Corrections and suspension: operator actions on an organization's credit and keys. */
cases.push(
  [
    "correction: a compensating entry (negative allowed), never below zero granted, the grant kept",
    async ({ store, areas }) => {
      const c = areas.control;
      await store.createOrg({ id: "org_a", name: "A", created: T }, 0n);
      const grant = {
        id: timeOrderedId("led_", Date.parse(T) + 1),
        org: "org_a",
        created: later(1),
        amount_micro_eur: 999_000_000,
        actor: "ops@example.eu",
        note: "typo: meant 9 EUR",
      };
      assert.equal(await c.grantCredits(grant), 999_000_000n);
      const correction = {
        id: timeOrderedId("led_", Date.parse(T) + 2),
        org: "org_a",
        created: later(2),
        amount_micro_eur: -990_000_001,
        actor: "ops@example.eu",
        note: "grant typed with three nines",
        kind: "correction" as const,
        corrects: grant.id,
      };
      assert.equal(await c.correctCredits(correction), 8_999_999n);
      const org = await store.getOrg("org_a");
      assert.equal(org?.balance_micro_eur, 8_999_999);
      assert.equal(org?.granted_micro_eur, 8_999_999);
      // The original entry is untouched; the correction is an entry of its own.
      assert.deepEqual(await c.listLedger("org_a", 10), [correction, grant]);
      // Taking more than was granted is refused, and nothing is written.
      const tooMuch = { ...correction, id: timeOrderedId("led_", Date.parse(T) + 3) };
      tooMuch.amount_micro_eur = -9_000_000;
      assert.equal(await c.correctCredits(tooMuch), undefined);
      assert.equal((await store.getOrg("org_a"))?.balance_micro_eur, 8_999_999);
      assert.equal((await c.listLedger("org_a", 10)).length, 2);
      // A positive correction without a named grant.
      const up = {
        ...correction,
        id: timeOrderedId("led_", Date.parse(T) + 4),
        amount_micro_eur: 1,
        corrects: null,
      };
      assert.equal(await c.correctCredits(up), 9_000_000n);
      assert.deepEqual((await c.listLedger("org_a", 1))[0], up);
    },
  ],
  [
    "corrections racing grants: every entry counted once, exactly",
    async ({ store, areas }) => {
      const c = areas.control;
      await store.createOrg({ id: "org_a", name: "A", created: T }, 0n);
      const entry = (n: number, amount: number, kind?: "correction") => ({
        id: timeOrderedId("led_", Date.parse(T) + n),
        org: "org_a",
        created: later(n),
        amount_micro_eur: amount,
        actor: "ops@example.eu",
        note: "x",
        ...(kind ? { kind, corrects: null } : {}),
      });
      await c.grantCredits(entry(0, 1_000_000));
      await Promise.all(
        Array.from(
          { length: 10 },
          (_, i) =>
            i % 2 === 0
              ? c.grantCredits(entry(i + 1, 1_000))
              : c.correctCredits(entry(i + 1, -7, "correction")),
        ),
      );
      assert.equal((await store.getOrg("org_a"))?.granted_micro_eur, 1_000_000 + 5 * 1_000 - 5 * 7);
      assert.equal((await c.listLedger("org_a", 20)).length, 11);
    },
  ],
  [
    "suspension: set and cleared on its own; a settings change keeps it",
    async ({ areas }) => {
      const c = areas.control;
      await c.setOrgSuspension("org_a", later(5));
      assert.equal((await c.getOrgSettings("org_a")).suspended_at, later(5));
      await c.setOrgSettings("org_a", {
        low_balance_micro_eur: 10,
        rpm_ceiling: null,
        require_2fa: false,
        suspended_at: null,
      });
      assert.deepEqual(await c.getOrgSettings("org_a"), {
        low_balance_micro_eur: 10,
        rpm_ceiling: null,
        require_2fa: false,
        suspended_at: later(5),
      });
      await c.setOrgSuspension("org_a", null);
      assert.equal((await c.getOrgSettings("org_a")).suspended_at, null);
      assert.equal((await c.getOrgSettings("org_a")).low_balance_micro_eur, 10);
      assert.equal((await c.getOrgSettings("org_b")).suspended_at, null);
    },
  ],
);

for (const [name, make] of [["kv", kvBackend], ["postgres", pgBackend]] as const) {
  Deno.test(`control-plane contract — ${name}`, async (t) => {
    await using backend = await make();
    for (const [title, run] of cases) {
      await t.step(`${name}: ${title}`, async () => {
        const opened = await backend.open();
        try {
          await run(opened);
        } finally {
          await opened.store.close();
        }
      });
    }
  });
}
