/**
 * The German speech model `nvidia/nvr-tts-de-de` of the shipped catalog, end to end through the
 * real gateway against the simulator speaking NVIDIA Riva's HTTP text-to-speech API as OVHcloud
 * AI Endpoints serves it: the request Riva takes (`/api/v1/tts/text_to_audio`, encoding 1,
 * de-DE, 16 kHz, the voice, Bearer key), a 16 kHz mono WAV back, the 1,000-character limit and
 * the single voice enforced before any upstream call, billing per character.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { parseBuffer } from "music-metadata";
import { configFromEnv } from "../../../src/config.ts";
import { startGateway } from "../../../src/gateway.ts";
import { silentLogger } from "../../../src/log.ts";
import { runAdminCommand } from "../../../src/admin/commands.ts";
import { startOpenAISimulator } from "../../../scripts/simulator/openai/mod.ts";
import { writeSimulatedCatalog } from "../../../scripts/simulated_catalog.ts";
import {
  rivaLanguageCode,
  rivaRequestBody,
  wavFormat,
} from "../../../src/providers/riva_tts/adapter.ts";

const MODEL = "nvidia/nvr-tts-de-de";
const TOKEN = "ovh-ai-endpoints-test-token";

async function withShippedCatalog(
  run: (ctx: {
    url: string;
    key: string;
    org: string;
    sim: Awaited<ReturnType<typeof startOpenAISimulator>>;
    listRequests: () => Promise<Array<Record<string, unknown>>>;
  }) => Promise<void>,
) {
  const sim = await startOpenAISimulator({ apiKey: TOKEN });
  const dir = await Deno.makeTempDir({ prefix: "sovra-riva-" });
  await writeSimulatedCatalog(new URL("../../../catalog", import.meta.url).pathname, dir, {
    openai: sim.url,
  });
  const gateway = await startGateway(
    configFromEnv({
      SOVRA_PORT: "0",
      SOVRA_KV: `${dir}/sovra.kv`,
      SOVRA_CATALOG: dir,
      OVH_AI_ENDPOINTS_ACCESS_TOKEN: TOKEN,
    }),
    { log: silentLogger },
  );
  const admin = (command: string[], flags: Record<string, string>) =>
    runAdminCommand(gateway.deps.store, { command, flags, defaultRpm: 600 }) as Promise<
      Record<string, string>
    >;
  try {
    const org = await admin(["org", "create"], { name: "Riva", "credits-micro-eur": "1000000" });
    const key = await admin(["key", "create"], { org: org.id! });
    await run({
      url: gateway.url,
      key: key.key!,
      org: org.id!,
      sim,
      listRequests: async () => {
        await gateway.deps.settler.idle();
        return (await gateway.deps.store.listRequests(org.id!, 10)) as unknown as Array<
          Record<string, unknown>
        >;
      },
    });
  } finally {
    await gateway.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("nvidia/nvr-tts-de-de — Riva request, 16 kHz mono WAV back, billed per character", () =>
  withShippedCatalog(async ({ url, key, sim, listRequests }) => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
    const input = "Guten Tag! Die Sonne scheint über München.";
    const response = await client.audio.speech.create({
      model: MODEL,
      voice: "German-DE-Male-1",
      input,
      response_format: "wav",
    });
    assert.equal(response.headers.get("content-type"), "audio/wav");
    assert.equal(response.headers.get("x-sovra-provider"), "ovhcloud-tts-de");
    const audio = new Uint8Array(await response.arrayBuffer());
    const meta = await parseBuffer(audio, { mimeType: "audio/wav" });
    assert.equal(meta.format.container, "WAVE");
    assert.equal(meta.format.sampleRate, 16000);
    assert.equal(meta.format.numberOfChannels, 1);
    assert.ok((meta.format.duration ?? 0) > 1, "audio that grows with the text");

    // What reached the upstream is Riva's request, not OpenAI's.
    const sent = sim.requests.at(-1)!;
    assert.equal(sent.path, "/api/v1/tts/text_to_audio");
    assert.equal(sent.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(sent.headers.accept, "application/octet-stream");
    assert.deepEqual(sent.body, {
      encoding: 1,
      language_code: "de-DE",
      sample_rate_hz: 16000,
      text: input,
      voice_name: "German-DE-Male-1",
    });

    const [row] = await listRequests();
    assert.equal(row?.endpoint, "speech");
    assert.equal(row?.status, 200);
    assert.equal(row?.characters, [...input].length);
    // EUR 2 per million characters = 2 micro-EUR per character.
    assert.equal(row?.cost_micro_eur, 2 * [...input].length);
  }));

Deno.test("nvidia/nvr-tts-de-de — 1,000 characters, one voice, wav only: refused before Riva", () =>
  withShippedCatalog(async ({ url, key, sim }) => {
    const post = (body: Record<string, unknown>) =>
      fetch(`${url}/v1/audio/speech`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, voice: "German-DE-Male-1", ...body }),
      });
    const ok = await post({ input: "ä".repeat(1000), response_format: "wav" });
    assert.equal(ok.status, 200, "exactly 1,000 characters pass");
    await ok.body?.cancel();
    const calls = sim.requests.length;
    for (
      const body of [
        { input: "ä".repeat(1001), response_format: "wav" },
        { input: "Hallo", voice: "alloy", response_format: "wav" },
        { input: "Hallo", response_format: "mp3" },
      ]
    ) {
      const refused = await post(body);
      assert.equal(refused.status, 400, JSON.stringify(body).slice(0, 60));
      const error = (await refused.json()).error;
      assert.equal(typeof error.message, "string");
    }
    assert.equal(sim.requests.length, calls, "no refused request reached the upstream");
  }));

Deno.test("riva-tts — language from the model name, request body, WAV header check", () => {
  assert.equal(rivaLanguageCode("nvr-tts-de-de"), "de-DE");
  assert.equal(rivaLanguageCode("nvr-tts-en-us"), "en-US");
  assert.equal(rivaLanguageCode("tts"), undefined);
  assert.deepEqual(
    rivaRequestBody({ input: "Hallo", voice: "German-DE-Male-1", responseFormat: "wav" }, "de-DE"),
    {
      encoding: 1,
      language_code: "de-DE",
      sample_rate_hz: 16000,
      text: "Hallo",
      voice_name: "German-DE-Male-1",
    },
  );
  const header = new Uint8Array(44);
  const view = new DataView(header.buffer);
  header.set([..."RIFF"].map((c) => c.charCodeAt(0)), 0);
  header.set([..."WAVEfmt "].map((c) => c.charCodeAt(0)), 8);
  view.setUint16(20, 1, true);
  view.setUint16(22, 2, true);
  view.setUint32(24, 22050, true);
  assert.deepEqual(wavFormat(header), { format: 1, channels: 2, sampleRate: 22050 });
  assert.equal(wavFormat(new TextEncoder().encode('{"message":"no"}')), undefined);
});
