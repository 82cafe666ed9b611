/**
 * A whole answer that comes before its admission record was sent to the store settles in that
 * same commit (`MeteringStore.settleAdmitted`): one store commit for the request — its rate
 * increment and its settle, no admission row — which the answer waits for. Counted through the
 * store's commit observer, on every non-stream path (chat, Responses, embeddings, speech). A
 * commit the store refuses answers the store's 500 with a zero-cost row, never a 200 whose
 * bill was not written.
 */
import assert from "node:assert/strict";
import { chatModel, type Harness, startHarness } from "../helpers/harness.ts";
import { chatBody } from "../helpers/api.ts";
import { embeddingModel, errorOf, speechModel } from "../helpers/non_chat.ts";
import { minuteOf } from "../../src/state/minute.ts";
import { kvKeys } from "../../src/state/kv/kv_keys.ts";

const CASES: Array<[string, string, unknown]> = [
  ["chat", "/v1/chat/completions", chatBody("acme/chat", "Hello there")],
  ["responses", "/v1/responses", { model: "acme/chat", input: "Hello there" }],
  ["embeddings", "/v1/embeddings", { model: "acme/embed", input: "some text" }],
  ["speech", "/v1/audio/speech", { model: "acme/tts", input: "Hallo", voice: "alloy" }],
];

const MODELS = [
  chatModel("acme/chat", "sim-chat"),
  embeddingModel("acme/embed", "sim-embed"),
  speechModel("acme/tts", "sim-tts"),
];

/** Counts the store's group commits (its commit observer, as the benchmark reads them). */
function countCommits(h: Harness): () => number {
  let commits = 0;
  const telemetry = h.gateway.deps.telemetry;
  const committed = telemetry.committed.bind(telemetry);
  telemetry.committed = (size, ms) => {
    commits++;
    committed(size, ms);
  };
  return () => commits;
}

async function admissionRows(h: Harness): Promise<number> {
  let rows = 0;
  for await (const _ of h.store.kv.list({ prefix: ["admission"] })) rows++;
  return rows;
}

/**
 * Commits at most every 5 s unless an answer waits: a deferred admission record is then still
 * queued when the simulator's answer comes, however slow the machine.
 */
const ENV = { SOVRA_COMMIT_INTERVAL_MS: "5000" };

Deno.test("settle in the admission's commit — one store commit per instant non-stream request, billed once, no admission row", async () => {
  await using h = await startHarness({ models: MODELS, env: ENV });
  const commits = countCommits(h);
  const ids: string[] = [];
  for (const [name, path, body] of CASES) {
    for (let i = 0; i < 3; i++) {
      h.store.hurryWrites();
      await h.flushed();
      const before = commits();
      const res = await h.post(path, body);
      assert.equal(res.status, 200, name);
      await res.arrayBuffer();
      ids.push(res.headers.get("x-sovra-request-id")!);
      await h.flushed();
      assert.equal(commits() - before, 1, `${name}: one commit carried the request`);
    }
  }
  const rows = await h.store.listRequests(h.org, 100);
  assert.deepEqual(rows.map((r) => r.id).sort(), [...ids].sort(), "one row per request");
  for (const row of rows) {
    assert.equal(row.status, 200, row.endpoint);
    assert.ok(row.cost_micro_eur > 0, `${row.endpoint}: billed`);
    assert.notEqual(row.recovered, true, `${row.endpoint}: its own record, not an estimate`);
  }
  const org = await h.store.getOrg(h.org);
  const spent = rows.reduce((sum, r) => sum + r.cost_micro_eur, 0);
  assert.equal(org?.spent_micro_eur, spent, "the debit is exactly the records' sum");
  const day = new Date().toISOString().slice(0, 10);
  assert.equal((await h.store.dailyUsage(h.org, day)).requests, ids.length);
  assert.equal(await admissionRows(h), 0, "no admission row written or left");
  // Recovery by another instance after this one's lease finds nothing to bill again.
  assert.equal(await h.store.recoverAdmissions("inst_other", Date.now() + 86_400_000), 0);
  assert.equal(h.gateway.deps.gate.holds.open, 0, "every credit hold released");
  // The rate increments rode in the same commits: the minute's bucket counts every request.
  const gate = await h.store.readGate(h.keyId, h.org, minuteOf(Date.now()));
  assert.ok(gate.rateCurrent + gate.ratePrevious >= ids.length, "every rate increment written");
});

/**
 * Fails the first `times` commits that write a request's row (the settle's commit, and its
 * retry alone); the others go through.
 */
const REQUEST_KEY = kvKeys.request("org", "req")[0];

function refuseSettleCommits(h: Harness, times: number): () => number {
  let refused = 0;
  const kv = h.store.kv;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    let settles = false;
    const set = op.set.bind(op);
    op.set = (key, value, options) => {
      if (key[0] === REQUEST_KEY) settles = true;
      return set(key, value, options);
    };
    const commit = op.commit.bind(op);
    op.commit = () => {
      if (!settles || refused >= times) return commit();
      refused++;
      return Promise.reject(new Error("The store refused the commit."));
    };
    return op;
  };
  return () => refused;
}

Deno.test("settle in the admission's commit — a commit the store refuses answers the store's 500 with a zero-cost row, not a 200 unbilled", async () => {
  await using h = await startHarness({ models: MODELS, env: ENV });
  const before = await h.store.getOrg(h.org);
  for (const [name, path, body] of CASES) {
    h.store.hurryWrites();
    await h.flushed();
    const refused = refuseSettleCommits(h, 2);
    const res = await h.post(path, body);
    assert.equal(res.status, 500, `${name}: the client's status`);
    const error = await errorOf(res);
    assert.equal(error.code, "internal_error", name);
    assert.match(error.message, /store/, `${name}: the store is named as the cause`);
    assert.equal(refused(), 2, `${name}: the settle's commit and its retry alone were refused`);
    const id = res.headers.get("x-sovra-request-id")!;
    // The failure's row is queued by now; it need not wait for the interval.
    h.store.hurryWrites();
    await h.flushed();
    const row = (await h.store.listRequests(h.org, 100)).find((r) => r.id === id);
    assert.equal(row?.status, 500, `${name}: the row carries the client's status`);
    assert.equal(row?.cost_micro_eur, 0, `${name}: an answer the client never got`);
  }
  assert.equal((await h.store.getOrg(h.org))?.spent_micro_eur, before?.spent_micro_eur);
  assert.equal(await admissionRows(h), 0);
  assert.equal(await h.store.recoverAdmissions("inst_other", Date.now() + 86_400_000), 0);
  assert.equal(h.gateway.deps.gate.holds.open, 0, "every credit hold released");
});

Deno.test("settle in the admission's commit — no answer before the commit carrying the settle is durable", async () => {
  await using h = await startHarness({ models: MODELS, env: ENV });
  const store = h.store;
  const settleAdmitted = store.settleAdmitted!.bind(store);
  for (const [name, path, body] of CASES) {
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    let released = false;
    let carried = 0;
    // The commit itself goes on; only the acknowledgement the answer waits for is held.
    store.settleAdmitted = (record, onSent) => {
      const settle = settleAdmitted(record, onSent);
      if (!settle) return undefined;
      carried++;
      return { written: settle.written, answerable: held.then(() => settle.answerable) };
    };
    const answer = h.post(path, body);
    // Released well after the simulator answered: the answer must still have waited.
    const releaseLater = setTimeout(() => {
      released = true;
      release();
    }, 300);
    try {
      const res = await answer;
      assert.equal(carried, 1, `${name}: the settle rode the admission's commit`);
      assert.equal(released, true, `${name}: the answer waited for that commit`);
      assert.equal(res.status, 200, name);
      await res.arrayBuffer();
    } finally {
      clearTimeout(releaseLater);
      release();
      store.settleAdmitted = settleAdmitted;
    }
  }
});
