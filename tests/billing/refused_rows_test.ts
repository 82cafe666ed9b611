/**
 * Requests refused after authentication leave a zero-cost metadata row with the error code
 * the client got (400, 402, 403, 404, 429), never the body; an unauthenticated request (401)
 * leaves nothing. The rows show in the dashboard's request table and in `admin requests`. A 429
 * flood writes at most two rows per key and minute, the second counting the rest.
 */
import assert from "node:assert/strict";
import { runAdminCli } from "../helpers/api.ts";
import { ApiClient, BROKEN_MODEL, MODEL, startDashboardHarness } from "../dashboard/support.ts";
import type { RequestRecord } from "../../src/state/records.ts";

const SECRET_PROMPT = "the words of a prompt that must never be stored";

function chat(url: string, key: string, body: unknown) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, body: await res.json() }));
}

const ask = (model: string, extra: object = {}) => ({
  model,
  messages: [{ role: "user", content: SECRET_PROMPT }],
  ...extra,
});

/** Every request row in the KV file, of every organization. */
async function allRows(kv: Deno.Kv): Promise<RequestRecord[]> {
  const out: RequestRecord[] = [];
  for await (const e of kv.list<RequestRecord>({ prefix: ["req"] })) out.push(e.value);
  return out;
}

Deno.test("refused requests — 400, 402, 403, 404 and 429 leave zero-cost rows with their error code, 401 nothing; in the dashboard and admin requests", async () => {
  await using d = await startDashboardHarness();
  const key = String(d.h.key);
  const slow = String((await d.h.admin(["key", "create"], { org: d.h.org, rpm: "1" })).key);
  const broke = await d.h.admin(["org", "create"], { name: "Broke", "credits-micro-eur": "0" });
  const brokeKey = String((await d.h.admin(["key", "create"], { org: String(broke.id) })).key);
  await d.user("owner@example.eu", d.h.org, "owner");
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const policy = await owner.json("PUT", `/api/orgs/${d.h.org}/policy`, {
    allowed_models: [MODEL],
  });
  assert.equal(policy.status, 200, JSON.stringify(policy.body));

  const expected: Array<[number, string, string, ReturnType<typeof chat>]> = [];
  const expect = (status: number, code: string, model: string, sent: ReturnType<typeof chat>) =>
    expected.push([status, code, model, sent]);
  expect(400, "invalid_request", MODEL, chat(d.h.url, key, ask(MODEL, { temperature: "hot" })));
  expect(400, "invalid_request", "", chat(d.h.url, key, `{"model": "${MODEL}", `));
  expect(404, "model_not_found", "acme/nope", chat(d.h.url, key, ask("acme/nope")));
  expect(403, "policy_forbids_model", BROKEN_MODEL, chat(d.h.url, key, ask(BROKEN_MODEL)));
  expect(402, "insufficient_credits", "", chat(d.h.url, brokeKey, ask(MODEL)));
  for (const [status, code, , sent] of expected) {
    const answer = await sent;
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, code);
  }
  assert.equal((await chat(d.h.url, slow, ask(MODEL))).status, 200);
  const limited = await chat(d.h.url, slow, ask(MODEL, { user: "end-user-7" }));
  assert.equal(limited.status, 429);
  expect(429, "rate_limit_exceeded", "", Promise.resolve(limited));
  await d.h.flushed();
  const before = (await allRows(d.h.store.kv)).length;
  const anonymous = await chat(d.h.url, "sk-ex-" + "x".repeat(43), ask(MODEL));
  assert.equal(anonymous.status, 401);
  await d.h.flushed();

  const rows = await allRows(d.h.store.kv);
  assert.equal(rows.length, before, "the 401 left no row");
  assert.ok(!JSON.stringify(rows).includes(SECRET_PROMPT), "never the body");
  for (const [status, code, model] of expected) {
    const row = rows.find((r) =>
      r.status === status && r.error_code === code && r.requested_model === model
    );
    assert.ok(row, `a row for ${status} ${code}: ${JSON.stringify(rows.map((r) => r.status))}`);
    assert.equal(row.cost_micro_eur, 0);
    assert.equal(row.served_model, null);
    assert.equal(row.provider, null);
    assert.equal(row.total_tokens, null);
  }
  assert.equal(rows.filter((r) => r.status === 200).length, 1);
  assert.equal(rows.filter((r) => r.status === 200)[0]!.error_code, undefined, "only on errors");
  assert.equal((await d.h.store.getOrg(d.h.org))!.spent_micro_eur > 0, true);
  assert.equal((await d.h.store.getOrg(String(broke.id)))!.balance_micro_eur, 0);

  // The customer sees them: the dashboard's request table (API and page) and the CSV.
  const listed = await owner.get(`/api/orgs/${d.h.org}/requests?status=error`);
  const codes = listed.body.data.map((r: RequestRecord) => r.error_code).sort();
  assert.deepEqual(codes, [
    "invalid_request",
    "invalid_request",
    "model_not_found",
    "policy_forbids_model",
    "rate_limit_exceeded",
  ]);
  const page = await (await owner.request("GET", `/orgs/${d.h.org}/usage?status=error`)).text();
  for (const code of codes) assert.ok(page.includes(code), `${code} on the usage page`);
  const csv = await (await owner.request("GET", `/api/orgs/${d.h.org}/requests.csv`)).text();
  assert.match(csv.split("\r\n")[0]!, /,error_code,refused_count$/);
  assert.match(csv, /,model_not_found,/);

  // And the operator, with `admin requests`.
  const cli = await runAdminCli(d.h.kvPath, ["requests", "--org", d.h.org]);
  assert.equal(cli.code, 0, cli.stderr);
  const lines = cli.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(lines.some((l) => l.status === 404 && l.error_code === "model_not_found"));
  assert.ok(lines.some((l) => l.status === 429 && l.error_code === "rate_limit_exceeded"));
});

Deno.test("refused requests — a 429 flood writes its first row at once and one more counting the rest of the minute", async () => {
  await using d = await startDashboardHarness();
  const slow = await d.h.admin(["key", "create"], { org: d.h.org, rpm: "1" });
  const key = String(slow.key);
  // Well inside a minute: the flood's refusals share one (the rows are per key and minute).
  const minuteLeft = 60_000 - Date.now() % 60_000;
  if (minuteLeft < 10_000) await new Promise((r) => setTimeout(r, minuteLeft + 100));
  assert.equal((await chat(d.h.url, key, ask(MODEL))).status, 200);
  const statuses = await Promise.all(
    Array.from({ length: 40 }, () => chat(d.h.url, key, ask(MODEL)).then((a) => a.status)),
  );
  assert.deepEqual(new Set(statuses), new Set([429]));
  await d.h.flushed();
  const first = (await allRows(d.h.store.kv)).filter((r) => r.key_id === slow.id);
  assert.deepEqual(first.map((r) => [r.status, r.refused_count]).sort(), [
    [200, undefined],
    [429, undefined],
  ], "the first refusal's row, at once; the others only counted");

  d.h.gateway.deps.refusedRows.flush(true);
  await d.h.flushed();
  const rows = (await allRows(d.h.store.kv)).filter((r) => r.key_id === slow.id);
  assert.equal(rows.length, 3, "two rows for 40 refusals");
  const merged = rows.find((r) => r.refused_count !== undefined)!;
  assert.equal(merged.refused_count, 39);
  assert.equal(merged.error_code, "rate_limit_exceeded");
  assert.equal(merged.cost_micro_eur, 0);
  const day = new Date().toISOString().slice(0, 10);
  const usage = await d.h.store.dailyUsage(d.h.org, day);
  assert.equal(usage.requests, 1 + 40, "the day counts every request, merged ones too");
});
