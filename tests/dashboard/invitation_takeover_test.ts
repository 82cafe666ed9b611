/**
 * Inviting an e-mail that already has an account, from another organization, hands the inviter
 * nothing that signs in as it: the operator creates Bravo's owner (and an operator) with
 * `admin user create` and leaves their links unused; Acme's owner invites both and uses every
 * link the answer holds, as an attacker would. The answers look the same as for a new e-mail.
 */
import assert from "node:assert/strict";
import { runAdminCliWith } from "../helpers/api.ts";
import { ApiClient, startDashboardHarness } from "./support.ts";

const ATTACKER_PASSWORD = "attacker chose this one";

/** Every URL anywhere in a JSON answer. */
function urlsIn(value: unknown): URL[] {
  const text = JSON.stringify(value);
  return (text.match(/https?:\/\/[^"\\\s]+/g) ?? []).map((u) => new URL(u));
}

/** Tries a link's token on every public endpoint that takes one, with the attacker's password. */
async function useLink(base: string, link: URL): Promise<void> {
  const token = link.searchParams.get("token");
  if (!token) return;
  const anon = new ApiClient(base);
  for (const path of ["/api/set-password", "/api/invitations/create-account"]) {
    const res = await anon.post(path, { token, password: ATTACKER_PASSWORD });
    assert.notEqual(res.status, 500, `${path}: ${JSON.stringify(res.body)}`);
  }
}

/** The answer's shape: every key, and the type of every value (not the values). */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v)]),
    );
  }
  return value === null ? "null" : typeof value;
}

Deno.test("invite — an existing account (owner elsewhere, pending operator) cannot be taken over by inviting it", async () => {
  await using d = await startDashboardHarness();
  await d.h.flushed();
  const env = { SOVRA_KV: d.h.kvPath, SOVRA_DASHBOARD_URL: d.url };
  const bravo = d.otherOrg;
  const made = await runAdminCliWith(env, [
    "user",
    "create",
    "--email",
    "bob@bravo.test",
    "--org",
    bravo,
    "--role",
    "owner",
  ]);
  assert.equal(made.code, 0, made.stderr);
  const op = await runAdminCliWith(env, [
    "user",
    "create",
    "--email",
    "op@sovra.test",
    "--operator",
  ]);
  assert.equal(op.code, 0, op.stderr);

  await d.user("owner@acme.test", d.h.org, "owner");
  await d.user("carol@elsewhere.test", bravo, "viewer");
  const acme = await ApiClient.signedIn(d.url, "owner@acme.test");
  const answers = new Map<string, { status: number; body: unknown }>();
  for (
    const email of ["bob@bravo.test", "op@sovra.test", "carol@elsewhere.test", "new@acme.test"]
  ) {
    const res = await acme.post(`/api/orgs/${d.h.org}/members`, { email, role: "viewer" });
    answers.set(email, res);
    for (const link of urlsIn(res.body)) await useLink(d.url, link);
  }

  for (const email of ["bob@bravo.test", "op@sovra.test"]) {
    const login = await new ApiClient(d.url).post("/api/login", {
      email,
      password: ATTACKER_PASSWORD,
    });
    assert.equal(login.status, 401, `${email} must stay out of the inviter's reach`);
  }
  assert.equal(
    (await d.dash.deps.accounts.findUserByEmail("bob@bravo.test"))?.password_hash,
    null,
    "Bob's password is still unset",
  );
  assert.equal((await d.dash.deps.accounts.findUserByEmail("op@sovra.test"))?.password_hash, null);
  assert.deepEqual(
    (await d.dash.deps.accounts.listMembershipsOfUser(
      (await d.dash.deps.accounts.findUserByEmail("bob@bravo.test"))!.id,
    )).map((m) => m.org),
    [bravo],
    "no membership in Acme until Bob accepts",
  );

  // The answer does not tell an existing account from a new e-mail.
  const statuses = [...answers.values()].map((a) => a.status);
  assert.deepEqual(statuses, [201, 201, 201, 201]);
  const shapes = [...answers.values()].map((a) => shape(a.body));
  for (const s of shapes) assert.deepEqual(s, shapes[0]);
});
