/**
 * The request path's store breaker (`src/state/store_breaker.ts`): two read failures in a row
 * (an outage error or a missed deadline) open it; a write an answer waits for opens it when it
 * has not landed within two deadlines, whatever the reads do (a KV file write-locked by another
 * process still answers reads); the waiting writes are released the moment it opens; a probe in
 * the background — never a request — closes it; a call with nothing to fall back on still tries
 * the store while it is open.
 */
import assert from "node:assert/strict";
import { StoreBreaker, StoreUnavailable } from "../../src/state/store_breaker.ts";
import { createLogger } from "../../src/log.ts";
import { until } from "../helpers/until.ts";

const never = () => new Promise<never>(() => {});
const down = () => Promise.reject(new Error("ECONNREFUSED"));

/** The breaker's timers do not keep a process alive (a server's sockets do): this test's do. */
function keepAlive(): { [Symbol.dispose](): void } {
  const timer = setInterval(() => {}, 1_000);
  return { [Symbol.dispose]: () => clearInterval(timer) };
}

function breakerWith(deadlineMs: number, probe: () => Promise<unknown>) {
  return new StoreBreaker({
    deadlineMs,
    probeMs: 20,
    probe,
    isOutage: (error) => (error as Error).message !== "bad data",
    log: createLogger("error"),
  });
}

Deno.test("StoreBreaker — reads: two outage errors or missed deadlines in a row open it, not one; data errors never", async () => {
  let probes = 0;
  const breaker = breakerWith(50, () => {
    probes++;
    return down();
  });
  using _alive = keepAlive();
  try {
    await assert.rejects(breaker.call(() => Promise.reject(new Error("bad data"))));
    await assert.rejects(breaker.call(() => Promise.reject(new Error("bad data"))));
    assert.equal(breaker.open, false, "the data's fault, not the store's");
    await assert.rejects(breaker.call(down));
    assert.equal(await breaker.call(() => Promise.resolve("answer")), "answer");
    await assert.rejects(breaker.call(down));
    assert.equal(breaker.open, false, "an answer in between: not in a row");
    await assert.rejects(breaker.call(never), StoreUnavailable);
    assert.equal(breaker.open, true, "an error then a missed deadline");
    await until("the background probe runs", () => probes >= 2, 2_000);
    assert.equal(breaker.open, true);
  } finally {
    breaker.close();
  }
});

Deno.test("StoreBreaker — a write slower than one deadline but landing opens nothing", async () => {
  const deadlineMs = 300;
  const breaker = breakerWith(deadlineMs, () => Promise.resolve());
  using _alive = keepAlive();
  try {
    let land!: () => void;
    const write = breaker.wait(new Promise<void>((resolve) => land = resolve));
    // A read started with it misses its (single) deadline: the write is now past one too.
    await assert.rejects(breaker.call(never), StoreUnavailable);
    land();
    await write;
    assert.equal(breaker.open, false);
    // The landed write cleared the read's miss: one more miss does not open it either.
    await assert.rejects(breaker.call(never), StoreUnavailable);
    assert.equal(breaker.open, false);
  } finally {
    breaker.close();
  }
});

Deno.test("StoreBreaker — a write that does not land opens it although reads answer; released; a probe closes it; calls still try", async () => {
  let storeBack = false;
  const recovered: string[] = [];
  const breaker = breakerWith(50, () => storeBack ? Promise.resolve() : down());
  breaker.onRecovered(() => recovered.push("recovered"));
  using _alive = keepAlive();
  try {
    // A write that never lands (the file's write lock), while every read answers at once.
    let released = false;
    const waiting = breaker.wait(never()).then(() => released = true);
    await until("the write's wait released", async () => {
      assert.equal(await breaker.call(() => Promise.resolve("read")), "read");
      return released;
    }, 2_000);
    await waiting;
    assert.equal(breaker.open, true);
    // While open a write is not waited for at all, and a call still reaches the store.
    await breaker.wait(never());
    assert.equal(await breaker.call(() => Promise.resolve("answer")), "answer");
    assert.equal(breaker.open, true, "a read's answer does not close it: writes may still hang");
    storeBack = true;
    await until("the probe closes the breaker", () => !breaker.open, 2_000);
    assert.deepEqual(recovered, ["recovered"]);
    // A write that lands resolves as before.
    await breaker.wait(Promise.resolve());
    assert.equal(breaker.open, false);
  } finally {
    breaker.close();
  }
});

Deno.test("StoreBreaker — failed writes the backend reports count like failed reads; a landed write closes it at once", async () => {
  const breaker = breakerWith(1_000, down);
  using _alive = keepAlive();
  try {
    breaker.failure(new Error("ECONNREFUSED"));
    assert.equal(breaker.open, false, "one failed batch is not an outage");
    // A write an answer waits for fails: its failure is the backend's to tell (not counted twice).
    await assert.rejects(breaker.wait(Promise.reject(new Error("ECONNREFUSED"))));
    assert.equal(breaker.open, false);
    breaker.failure(new Error("ECONNREFUSED"));
    assert.equal(breaker.open, true);
    breaker.success();
    assert.equal(breaker.open, false);
  } finally {
    breaker.close();
  }
});
