/**
 * Graceful shutdown of the real process (`main.ts`): on SIGTERM readiness turns 503 while the
 * listener still serves (the notice period), then it stops accepting; a stream that ends within
 * the drain time ends normally, one that does not is cut; every request is settled and billed,
 * the store is closed and the process exits 0.
 */
import assert from "node:assert/strict";
import { logRecord, seedKey, startMain } from "../contract/process_support.ts";
import { startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { SIM_KEY, writeCatalog } from "../helpers/harness.ts";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { closing } from "../helpers/dispose.ts";

const PRICING = {
  prompt_micro_eur_per_million: 1_000_000,
  completion_micro_eur_per_million: 3_000_000,
};

function model(id: string, upstream: string) {
  return {
    id,
    kind: "chat",
    sovereignty: "strict",
    pricing: PRICING,
    supported_parameters: ["max_tokens"],
    routes: [{ provider: "sim", upstream_model: upstream }],
  };
}

Deno.test("SIGTERM — unready first, streams finish or are cut at SOVRA_DRAIN_MS, all billed, exit 0", async () => {
  const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
  const dir = await Deno.makeTempDir({ prefix: "sovra-drain-" });
  const kvPath = `${dir}/sovra.kv`;
  await writeCatalog(
    dir,
    { sim: { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" } },
    [
      // ~1.5 s of stream: ends inside the drain time.
      model("acme/short", "short+slow-100+chunks-15"),
      // ~30 s of stream: still open when the drain time runs out.
      model("acme/long", "long+slow-100+chunks-300"),
    ],
  );
  const { org, key } = await seedKey(kvPath);
  const gateway = startMain({
    SOVRA_PORT: "0",
    SOVRA_KV: kvPath,
    SOVRA_CATALOG: dir,
    SOVRA_DRAIN_NOTICE_MS: "1000",
    SOVRA_DRAIN_MS: "3000",
    SIM_KEY,
  });
  try {
    const listening = logRecord(await gateway.waitForLine((l) => l.includes('"sovra listening"')));
    const url = String(listening.url);
    const post = (body: unknown) =>
      fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: "ready" });

    const messages = [{ role: "user", content: "Hello" }];
    const short = await post({ model: "acme/short", messages, stream: true });
    const long = await post({ model: "acme/long", messages, stream: true });
    assert.equal(short.status, 200);
    assert.equal(long.status, 200);
    const shortText = new Response(short.body).text();
    const longReader = long.body!.getReader();
    assert.equal((await longReader.read()).done, false, "the long stream has started");

    gateway.signal("SIGTERM");
    await gateway.waitForLine((l) => l.includes("draining: readiness is unready"));
    // The notice period: unready, but still serving (the load balancer stops sending first).
    const unready = await fetch(`${url}/readyz`);
    assert.equal(unready.status, 503);
    assert.equal((await unready.json()).error.code, "draining");
    const during = await post({ model: "acme/short", messages: [{ role: "user", content: "Hi" }] });
    assert.equal(during.status, 200);
    await during.body?.cancel();

    // The short stream ends normally.
    assert.ok((await shortText).trimEnd().endsWith("data: [DONE]"));
    // The long one is cut when the drain time runs out: the connection drops.
    let cut = false;
    try {
      while (!(await longReader.read()).done) { /* streaming */ }
    } catch {
      cut = true;
    }
    assert.ok(cut, "the long stream was cut, not completed");

    const status = await gateway.status;
    assert.equal(status.code, 0);
    const ranOut = logRecord(await gateway.waitForLine((l) => l.includes("drain time ran out")));
    assert.equal(ranOut.cut, 1, "exactly the long stream was cut");
    await gateway.waitForLine((l) => l.includes("drained: settles flushed, store closed"));
    // A new connection is refused now.
    await assert.rejects(fetch(`${url}/readyz`));

    // Everything was settled before the exit: three rows, the cut stream billed for its tokens.
    await using store = closing(await openKvStore(kvPath));
    const rows = await store.listRequests(org, 10);
    assert.equal(rows.length, 3);
    const longRow = rows.find((r) => r.requested_model === "acme/long");
    assert.ok(longRow && longRow.stream && longRow.status === 200);
    assert.ok((longRow.completion_tokens ?? 0) > 0, "the cut stream's tokens are counted");
    assert.ok(longRow.cost_micro_eur > 0, "and billed");
    const view = await store.getOrg(org);
    const billed = rows.reduce((sum, r) => sum + r.cost_micro_eur, 0);
    assert.equal(view?.spent_micro_eur, billed, "every settle reached the store");
  } finally {
    await gateway.stop();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
});

for (const workers of ["1", "2"]) {
  Deno.test(`SIGTERM with 100 open streams (SOVRA_WORKERS=${workers}) — all 100 that end within SOVRA_DRAIN_MS end with usage and [DONE]; the 3 still open are cut, billed and counted`, async () => {
    const sim = await startOpenAISimulator({ apiKey: SIM_KEY });
    const dir = await Deno.makeTempDir({ prefix: "sovra-drain-100-" });
    const kvPath = `${dir}/sovra.kv`;
    await writeCatalog(
      dir,
      { sim: { dialect: "openai", base_url: sim.url, api_key_env: "SIM_KEY" } },
      [
        // ~2 s of stream each: inside the drain time.
        model("acme/short", "short+slow-100+chunks-20"),
        // ~60 s: open when the drain time runs out.
        model("acme/long", "long+slow-100+chunks-600"),
      ],
    );
    const { org, key } = await seedKey(kvPath);
    const gateway = startMain({
      SOVRA_PORT: "0",
      SOVRA_KV: kvPath,
      SOVRA_CATALOG: dir,
      SOVRA_DRAIN_MS: "8000",
      SOVRA_WORKERS: workers,
      SIM_KEY,
    });
    try {
      const listening = logRecord(
        await gateway.waitForLine((l) => l.includes('"sovra listening"')),
      );
      const url = String(listening.url);
      // max_tokens keeps 103 credit holds within the seeded credit.
      const open = async (model: string, maxTokens: number) => {
        const res = await fetch(`${url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            model,
            messages: [{ role: "user", content: "Hello" }],
            max_tokens: maxTokens,
            stream: true,
            stream_options: { include_usage: true },
          }),
        });
        assert.equal(res.status, 200);
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        const first = await reader.read();
        assert.equal(first.done, false, "the stream has started");
        return { reader, text: first.value! };
      };
      const shorts = await Promise.all(Array.from({ length: 100 }, () => open("acme/short", 50)));
      const longs = await Promise.all(Array.from({ length: 3 }, () => open("acme/long", 1000)));
      gateway.signal("SIGTERM");
      await gateway.waitForLine((l) => l.includes("draining: no longer accepting"));

      const finish = async (
        stream: { reader: ReadableStreamDefaultReader<string>; text: string },
      ) => {
        let text = stream.text;
        try {
          for (;;) {
            const { done, value } = await stream.reader.read();
            if (done) return { text, broken: false };
            text += value;
          }
        } catch {
          return { text, broken: true };
        }
      };
      const ended = await Promise.all(shorts.map(finish));
      const complete = ended.filter(({ text, broken }) => {
        const events = text.split("\n\n").map((e) => e.trim()).filter((e) => e !== "");
        const last = events.at(-1);
        const usage = events.at(-2);
        return !broken && last === "data: [DONE]" && usage !== undefined &&
          JSON.parse(usage.slice("data: ".length)).usage?.completion_tokens > 0;
      });
      assert.equal(
        complete.length,
        100,
        "every stream that ended in time has its usage and [DONE]",
      );
      const cutStreams = await Promise.all(longs.map(finish));
      for (const { text } of cutStreams) {
        assert.ok(!text.trimEnd().endsWith("data: [DONE]"), "a stream open at the deadline is cut");
      }

      assert.equal((await gateway.status).code, 0);
      const done = logRecord(await gateway.waitForLine((l) => l.includes('"shutdown complete"')));
      assert.equal(done.cut, 3, "the shutdown log line counts the cut streams");
      await using store = closing(await openKvStore(kvPath));
      const rows = await store.listRequests(org, 200);
      assert.equal(rows.length, 103, "every stream has its record");
      for (const row of rows.filter((r) => r.requested_model === "acme/long")) {
        assert.ok(
          (row.completion_tokens ?? 0) > 0 && row.cost_micro_eur > 0,
          "billed as generated",
        );
      }
      const view = await store.getOrg(org);
      assert.equal(view?.spent_micro_eur, rows.reduce((sum, r) => sum + r.cost_micro_eur, 0));
    } finally {
      await gateway.stop();
      await sim.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
