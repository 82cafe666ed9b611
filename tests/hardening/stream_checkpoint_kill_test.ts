/**
 * kill -9 during long streams (docs/reliability.md, "Stream checkpoints"): a stream's completion
 * tokens so far ride the group commits every `SOVRA_STREAM_CHECKPOINT_MS` (here 500 ms), so the
 * process that recovers the killed one's admissions bills each cut stream for what it streamed
 * but at most about one interval's tokens — before, its prompt alone (completion unknown). On KV
 * and on PostgreSQL, four streams of 200 chunks, 50 ms apart, killed after 60 chunks each.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startInstances } from "../helpers/instances.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { until } from "../helpers/until.ts";
import { estimateTextTokens } from "../../src/billing/estimate_tokens.ts";
import { costMicroEur } from "../../src/billing/cost.ts";
import type { RequestRecord } from "../../src/state/records.ts";

const PRICING = {
  prompt_micro_eur_per_million: 1_000_000,
  completion_micro_eur_per_million: 3_000_000,
};
const CHECKPOINT_MS = 500;
const CHUNK_MS = 50;
const STREAMS = 4;
const RECEIVED_CHUNKS = 60;

interface Open {
  id: string;
  text: string;
  reader: ReadableStreamDefaultReader<string>;
}

/** Opens a stream and reads until `chunks` content chunks have arrived. */
async function streamUntil(url: string, key: string, chunks: number): Promise<Open> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "acme/long",
      messages: [{ role: "user", content: "Tell me a long story." }],
      stream: true,
    }),
  });
  assert.equal(res.status, 200);
  const id = res.headers.get("x-request-id")!;
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let seen = 0;
  let pending = "";
  while (seen < chunks) {
    const { value, done } = await reader.read();
    assert.ok(!done, "the stream ended before the kill");
    pending += value;
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!line.startsWith("data: {")) continue;
      const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
      if (typeof delta === "string" && delta !== "") {
        text += delta;
        seen++;
      }
    }
  }
  return { id, text, reader };
}

async function killDuringStreams(databaseUrl?: string) {
  await using setup = await startInstances({
    models: [chatModel("acme/long", `sim-chat+slow-${CHUNK_MS}+chunks-200`, { pricing: PRICING })],
    accounts: [{ credits: 1_000_000_000 }],
    ...(databaseUrl ? { databaseUrl } : {}),
    env: {
      SOVRA_STREAM_CHECKPOINT_MS: String(CHECKPOINT_MS),
      SOVRA_INSTANCE_LEASE_MS: "2000",
      SOVRA_WORKERS: "1",
    },
  });
  const [payer] = setup.accounts;
  const first = await setup.start();
  const streams = await Promise.all(
    Array.from({ length: STREAMS }, () => streamUntil(first.url, payer!.key, RECEIVED_CHUNKS)),
  );
  first.main.signal("SIGKILL");
  await first.main.status;
  for (const s of streams) await s.reader.cancel().catch(() => {});

  // The next process settles what the killed one admitted, from its latest checkpoints.
  await setup.start();
  const store = await setup.store();
  const ids = new Set(streams.map((s) => s.id));
  let rows: RequestRecord[] = [];
  await until("the cut streams billed by recovery", async () => {
    rows = (await store.listRequests(payer!.org, 100)).filter((r) => ids.has(r.id));
    return rows.length === STREAMS;
  }, 30_000);
  // The tokens of one checkpoint interval of chunks, three times over (the interval, the
  // commit in flight, what the client had not read yet): the most a kill may lose.
  const slack = 3 * (await estimateTextTokens(streams[0]!.text)) *
    (CHECKPOINT_MS / CHUNK_MS) / RECEIVED_CHUNKS;
  for (const stream of streams) {
    const row = rows.find((r) => r.id === stream.id)!;
    const received = await estimateTextTokens(stream.text);
    assert.equal(row.recovered, true);
    assert.equal(row.status, 0);
    assert.ok(row.completion_tokens !== null, `no completion billed: ${JSON.stringify(row)}`);
    assert.ok(
      row.completion_tokens >= received - slack,
      `billed ${row.completion_tokens} completion tokens, the client had ${received} (slack ${slack})`,
    );
    assert.equal(
      row.cost_micro_eur,
      costMicroEur(PRICING, {
        promptTokens: row.prompt_tokens ?? 0,
        completionTokens: row.completion_tokens,
      }),
    );
  }
  const spent = (await store.getOrg(payer!.org))!.spent_micro_eur;
  assert.equal(spent, rows.reduce((sum, r) => sum + r.cost_micro_eur, 0));
  console.log(JSON.stringify({
    measured: "kill -9 during streams",
    backend: databaseUrl ? "postgres" : "kv",
    billed_completion_tokens: rows.map((r) => r.completion_tokens),
  }));
}

Deno.test("kill -9 during long streams (KV) — recovery bills each stream's completion up to its last checkpoint", async () => {
  await killDuringStreams();
});

Deno.test("kill -9 during long streams (PostgreSQL) — recovery bills each stream's completion up to its last checkpoint", async () => {
  await using cluster = await startPostgres();
  await killDuringStreams(await cluster.database());
});
