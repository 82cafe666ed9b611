/**
 * The operator's RPM ceiling caps every key of the organization, existing ones included: the
 * effective limit is min(key's rpm, ceiling), from the key's next lookup on (≤ the key cache's
 * time, as a revocation).
 */
import assert from "node:assert/strict";
import { ApiClient, MODEL, startDashboardHarness } from "../dashboard/support.ts";

function chat(url: string, key: string) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Hi" }] }),
  });
}

Deno.test("rpm ceiling — a key created with rpm 100 is capped at a ceiling of 5 set afterwards: the 6th request in the minute is 429", async () => {
  await using d = await startDashboardHarness();
  await d.user("owner@example.eu", d.h.org, "owner");
  await d.user("op@example.eu", undefined, undefined, true);
  const owner = await ApiClient.signedIn(d.url, "owner@example.eu");
  const created = await owner.post(`/api/orgs/${d.h.org}/keys`, { name: "fast", rpm: 100 });
  assert.equal(created.status, 201);
  assert.equal(created.body.rpm, 100);
  const op = await ApiClient.signedIn(d.url, "op@example.eu");
  const set = await op.json("PATCH", `/api/orgs/${d.h.org}/settings`, { rpm_ceiling: 5 });
  assert.equal(set.status, 200, JSON.stringify(set.body));

  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await chat(d.h.url, created.body.key);
    statuses.push(res.status);
    if (i === 0) assert.equal(res.headers.get("x-ratelimit-limit-requests"), "5");
    const body = await res.json();
    if (res.status === 429) {
      assert.equal(body.error.code, "rate_limit_exceeded");
      assert.match(body.error.message, /5 requests per minute/);
    }
  }
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
  // The key itself keeps its rpm: lifting the ceiling restores it.
  const keys = await owner.get(`/api/orgs/${d.h.org}/keys`);
  const listed = keys.body.data.find((k: { id: string }) => k.id === created.body.id);
  assert.equal(listed.rpm, 100);
  assert.equal(listed.rpm_effective, 5, "the list shows what is enforced");
});
