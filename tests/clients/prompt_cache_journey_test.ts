/**
 * Prompt caching billed exactly, end to end: a Claude request with cache breakpoints sent twice
 * through the official `openai` SDK against the shipped catalog (Claude Sonnet 4.5 on Bedrock,
 * Claude Opus 4.5 on Vertex, each provider simulated with its own prompt cache). The first call
 * writes the cache, the second reads it; each is billed at the catalog's prices class by class
 * (prompt, cache read, cache write, completion), computed here from the simulator's own usage
 * report with bigints, and the same figures show in the answer's usage, the metadata row and
 * the dashboard's usage (its prompt-cache panel).
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { SHIPPED_CATALOG, startShippedGateway } from "../helpers/shipped_catalog.ts";
import { startDashboard } from "../../src/dashboard/server.ts";
import { silentLogger } from "../../src/log.ts";
import { hashPassword } from "../../src/dashboard/passwords.ts";
import { randomId } from "../../src/util/ids.ts";
import { ApiClient, PASSWORD } from "../dashboard/support.ts";
import type { RequestRecord } from "../../src/state/records.ts";

interface Prices {
  prompt_micro_eur_per_million: number;
  completion_micro_eur_per_million: number;
  cached_prompt_micro_eur_per_million: number;
  cache_write_micro_eur_per_million: number;
}

async function shippedPrices(id: string): Promise<Prices> {
  const file = JSON.parse(await Deno.readTextFile(`${SHIPPED_CATALOG}/models.json`));
  const model = file.models.find((m: { id: string }) => m.id === id);
  return model.pricing;
}

/** The bill of disjoint token classes, exact: Σ tokens × price, rounded up once. */
function bill(
  p: Prices,
  c: { input: number; read: number; write: number; output: number },
): number {
  const sum = BigInt(c.input) * BigInt(p.prompt_micro_eur_per_million) +
    BigInt(c.read) * BigInt(p.cached_prompt_micro_eur_per_million) +
    BigInt(c.write) * BigInt(p.cache_write_micro_eur_per_million) +
    BigInt(c.output) * BigInt(p.completion_micro_eur_per_million);
  return Number((sum + 999_999n) / 1_000_000n);
}

/** A long system prompt per round (above both models' cache minimum of 4,096 tokens). */
function system(round: string): string {
  return Array.from(
    { length: 900 },
    (_, i) => `Rule ${i} (${round}): answer in the customer's language and cite the clause.`,
  ).join("\n");
}

function messages(round: string, question: string) {
  return [
    {
      role: "system",
      content: [{ type: "text", text: system(round), cache_control: { type: "ephemeral" } }],
    },
    { role: "user", content: question },
  ] as unknown as OpenAI.Chat.ChatCompletionMessageParam[];
}

const CASES = [
  { model: "anthropic/claude-sonnet-4-5", provider: "bedrock" },
  { model: "anthropic/claude-opus-4-5", provider: "vertex" },
] as const;

Deno.test("prompt cache journey — the second call is billed at the cached price in usage, metadata and dashboard", async (t) => {
  await using s = await startShippedGateway();
  const dash = startDashboard({
    config: { ...s.gateway.deps.config, dashboardPort: 0, passwordScryptLogN: 10 },
    store: s.gateway.deps.store,
    log: silentLogger,
    apiUrl: s.url,
    catalog: () => s.gateway.deps.catalog.current,
  });
  await using _dash = { [Symbol.asyncDispose]: () => dash.close() };
  const userId = randomId("usr_", 12);
  await dash.deps.accounts.createUser({
    id: userId,
    email: "owner@example.eu",
    password_hash: await hashPassword(PASSWORD, 10),
    operator: false,
    created: new Date().toISOString(),
    password_changed_at: null,
  });
  await dash.deps.accounts.addMembership({
    org: s.org,
    user: userId,
    role: "owner",
    created: new Date().toISOString(),
  });
  const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key });

  const rows: RequestRecord[] = [];
  let expectedSavings = 0;
  for (const { model, provider } of CASES) {
    const prices = await shippedPrices(model);
    for (const stream of [false, true]) {
      await t.step(`${model} on ${provider}, ${stream ? "streamed" : "whole"}`, async () => {
        const sim = provider === "bedrock" ? s.bedrock : s.vertex;
        sim.reset();
        // A new system prompt each round (a cache of its own), a new question each call: the
        // cached prefix is the system prompt alone.
        const round = `${model} ${stream ? "stream" : "whole"}`;
        const usages = [];
        for (const question of ["Question one?", "Question two, a longer one?"]) {
          if (!stream) {
            const answer = await client.chat.completions.create({
              model,
              messages: messages(round, question),
            });
            usages.push(answer.usage!);
          } else {
            const chunks = await client.chat.completions.create({
              model,
              messages: messages(round, question),
              stream: true,
              stream_options: { include_usage: true },
            });
            let usage: OpenAI.CompletionUsage | undefined;
            for await (const chunk of chunks) if (chunk.usage) usage = chunk.usage;
            usages.push(usage!);
          }
        }
        assert.equal(sim.requests.length, 2);
        // The simulator's own report, in the provider's disjoint counts.
        const reported = sim.requests.map((r) => {
          const u = r.usage as Record<string, number>;
          return provider === "bedrock"
            ? {
              input: u.inputTokens!,
              read: u.cacheReadInputTokens ?? 0,
              write: u.cacheWriteInputTokens ?? 0,
              output: u.outputTokens!,
            }
            : {
              input: u.input_tokens!,
              read: u.cache_read_input_tokens ?? 0,
              write: u.cache_creation_input_tokens ?? 0,
              output: u.output_tokens!,
            };
        });
        const [first, second] = reported as [typeof reported[0], typeof reported[0]];
        // The breakpoint reached the provider in its own form.
        const body = JSON.stringify(sim.requests[0]!.body);
        assert.ok(
          provider === "bedrock"
            ? body.includes('"cachePoint":{"type":"default"}')
            : body.includes('"cache_control":{"type":"ephemeral"}'),
          body.slice(0, 300),
        );
        assert.ok(first.write > 4_000, `first call writes the cache: ${JSON.stringify(first)}`);
        assert.equal(first.read, 0);
        assert.equal(second.read, first.write, "the second call reads what the first wrote");
        assert.equal(second.write, 0);

        // Usage, inclusive as OpenAI counts it: prompt_tokens counts cached and written ones.
        for (const [i, u] of usages.entries()) {
          const r = reported[i]!;
          assert.equal(u.prompt_tokens, r.input + r.read + r.write);
          assert.equal(u.prompt_tokens_details?.cached_tokens, r.read);
          assert.equal(
            (u.prompt_tokens_details as { cache_write_tokens?: number }).cache_write_tokens,
            r.write,
          );
          assert.equal(u.completion_tokens, r.output);
        }

        await s.gateway.deps.settler.idle();
        await s.gateway.deps.store.flushed();
        const [newer, older] = await s.gateway.deps.store.listRequests(s.org, 2);
        for (const [row, r] of [[older!, first], [newer!, second]] as const) {
          assert.equal(row.requested_model, model);
          assert.equal(row.provider, provider);
          assert.equal(row.prompt_tokens, r.input + r.read + r.write);
          assert.equal(row.cached_tokens, r.read);
          assert.equal(row.cache_write_tokens, r.write);
          assert.equal(row.cost_micro_eur, bill(prices, r), `${model} ${JSON.stringify(r)}`);
          const list = bill(prices, {
            input: r.input + r.read + r.write,
            read: 0,
            write: 0,
            output: r.output,
          });
          assert.equal(row.cache_savings_micro_eur, list - row.cost_micro_eur);
          expectedSavings += list - row.cost_micro_eur;
          rows.push(row);
        }
        // The read is a tenth of the input price: the second call costs far less than the first.
        assert.ok(newer!.cost_micro_eur < older!.cost_micro_eur / 2);
        assert.ok(newer!.cache_savings_micro_eur > 0 && older!.cache_savings_micro_eur < 0);
      });
    }
  }

  await t.step("the dashboard's usage shows the cached share and what it saved", async () => {
    const c = await ApiClient.signedIn(dash.url, "owner@example.eu");
    const usage = await c.get(`/api/orgs/${s.org}/usage?days=7`);
    assert.equal(usage.status, 200);
    const cache = usage.body.cache;
    assert.equal(cache.cached_tokens, rows.reduce((n, r) => n + (r.cached_tokens ?? 0), 0));
    assert.equal(
      cache.cache_write_tokens,
      rows.reduce((n, r) => n + (r.cache_write_tokens ?? 0), 0),
    );
    assert.equal(cache.prompt_tokens, rows.reduce((n, r) => n + (r.prompt_tokens ?? 0), 0));
    assert.equal(cache.saved_micro_eur, expectedSavings);
    assert.equal(
      usage.body.totals.cost_micro_eur.at(-1),
      rows.reduce((n, r) => n + r.cost_micro_eur, 0),
    );
    const page = await c.request("GET", `/orgs/${s.org}/usage?days=7`);
    const html = await page.text();
    const share = (cache.cached_tokens / cache.prompt_tokens * 100).toFixed(1);
    assert.match(html, new RegExp(`id="cache-share">${share.replace(".", "\\.")} %<`));
    assert.ok(expectedSavings > 0, "over two rounds per model the reads outweigh the writes");
  });
});
