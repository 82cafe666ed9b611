/**
 * What the instance-wide limits cost a request on the gate's hot path (docs/performance.md,
 * "Instance-wide limits"): the gate's own steps for one request — the view of its key's
 * snapshot, the rate increment queued, the credit hold placed, the increment and the debit sent
 * and settled, the hold released — with this isolate counting alone (no table) and with the
 * process-wide table (`SharedArrayBuffer` + `Atomics`, as every isolate runs since), and the
 * alternative not taken: one authority isolate asked by message (a Web Worker that answers each
 * request's decision), timed as a round trip.
 *
 *   deno run -A scripts/bench/shared_limits_cost.ts [--requests N] [--rounds R] [--json FILE]
 */
import { parseArgs } from "node:util";
import { GateState, rateName } from "../../src/limits/gate_state.ts";
import { UnsentTally } from "../../src/limits/unsent_tally.ts";
import { CreditHolds } from "../../src/limits/credit_holds.ts";
import { SharedTable } from "../../src/limits/shared_table.ts";
import { SharedCounters } from "../../src/limits/shared_counters.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string", default: "100000" },
    rounds: { type: "string", default: "3" },
    json: { type: "string" },
  },
});
const requests = Number(values.requests);
const rounds = Number(values.rounds);

const KEYS = 64;
const store = {
  readGate: () => Promise.resolve({ rateCurrent: 0, ratePrevious: 0, balanceMicroEur: 10n ** 15n }),
};

/** One gate (tallies, holds) and its snapshots of KEYS keys. */
async function gateOf(shared: SharedCounters | undefined) {
  const requestsTally = new UnsentTally(shared);
  const debits = new UnsentTally(shared);
  const holds = new CreditHolds(shared);
  const gate = new GateState(store, requestsTally, debits, 3_600_000, 0, holds, shared);
  const snapshots = [];
  for (let k = 0; k < KEYS; k++) {
    snapshots.push(await gate.snapshot(`key_${k}`, `org_${k % 8}`, 1, 0));
  }
  return { gate, requestsTally, debits, holds, snapshots };
}

/** ns per request of the gate's steps. */
async function perRequest(shared: SharedCounters | undefined): Promise<number> {
  const { gate, requestsTally, debits, holds, snapshots } = await gateOf(shared);
  let sink = 0;
  const started = performance.now();
  for (let i = 0; i < requests; i++) {
    const k = i % KEYS;
    const key = `key_${k}`;
    const org = `org_${k % 8}`;
    const id = `req_${i}`;
    const view = gate.view(snapshots[k]!, key, org);
    sink += view.rateCurrent;
    const rate = requestsTally.queue(rateName(key, 1), 1, 0, key);
    gate.tryHold(key, org, id, 1_130);
    rate();
    rate.settled();
    const debit = debits.queue(org, 700, 0, org);
    holds.release(id);
    debit();
    debit.settled();
  }
  const ns = ((performance.now() - started) * 1e6) / requests;
  if (sink < 0) console.log(sink);
  return ns;
}

/** µs per decision asked of an authority isolate by message (the design not taken). */
async function authorityRoundTrip(): Promise<number> {
  const source = `self.onmessage = (e) => self.postMessage({ id: e.data.id, allowed: true });`;
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  try {
    const ask = (id: number) =>
      new Promise<void>((resolve) => {
        worker.onmessage = () => resolve();
        worker.postMessage({ id, key: "key_1", org: "org_1", hold: 1_130 });
      });
    for (let i = 0; i < 200; i++) await ask(i);
    const n = Math.min(20_000, requests / 10);
    const started = performance.now();
    for (let i = 0; i < n; i++) await ask(i);
    return ((performance.now() - started) * 1000) / n;
  } finally {
    worker.terminate();
    URL.revokeObjectURL(url);
  }
}

const local: number[] = [];
const shared: number[] = [];
for (let r = 0; r < rounds; r++) {
  local.push(await perRequest(undefined));
  const table = SharedTable.create();
  shared.push(await perRequest(new SharedCounters(table, 60_000)));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const result = {
  requests,
  rounds,
  local_ns: Math.round(median(local)),
  shared_ns: Math.round(median(shared)),
  authority_round_trip_us: Math.round((await authorityRoundTrip()) * 10) / 10,
};
console.log(
  `shared limits, gate steps per request (median of ${rounds} × ${requests}): ` +
    `this isolate alone ${result.local_ns} ns, with the process-wide table ${result.shared_ns} ns ` +
    `(+${result.shared_ns - result.local_ns} ns); an authority isolate asked by message: ` +
    `${result.authority_round_trip_us} µs a round trip`,
);
if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(result));
