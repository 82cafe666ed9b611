/**
 * Attack: input bounds everywhere. A transcription `user` over 256
 * characters is refused before any provider call (not truncated silently), like on every
 * other endpoint.
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { startProcessGateway } from "./process_gateway.ts";
import { makeWav } from "../helpers/audio.ts";
import { audioParts, transcribe, transcriptionModel } from "../helpers/non_chat.ts";

Deno.test("attack — a transcription user of 300 characters is refused with 400 naming 'user'", async () => {
  await using h = await startHarness({
    models: [transcriptionModel("acme/whisper", "sim-whisper")],
  });
  const extra = [{ name: "user", value: "u".repeat(300) }];
  const res = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 1 }), "a.wav", extra),
  );
  const body = await res.json();
  assert.equal(res.status, 400, JSON.stringify(body));
  assert.equal(body.error.code, "invalid_request");
  assert.equal(body.error.param, "user");
  assert.equal(h.sim.requests.length, 0, "no provider call");
  const ok = await transcribe(
    h,
    audioParts("acme/whisper", makeWav({ seconds: 1 }), "a.wav", [{
      name: "user",
      value: "u".repeat(256),
    }]),
  );
  await ok.body?.cancel();
  assert.equal(ok.status, 200, "256 characters pass");
});

Deno.test("attack — a catalog base_url other than http(s) is refused at load", async () => {
  for (const base_url of ["file:///etc/passwd", "ftp://127.0.0.1/v1", "data:text/plain,x"]) {
    await assert.rejects(
      () =>
        startHarness({
          models: [chatModel("acme/chat", "up")],
          providers: { "sim-a": { dialect: "openai", base_url } },
        }),
      (error: Error) => error.message.includes("base_url"),
      base_url,
    );
  }
});

Deno.test("attack — a loopback or link-local base_url is warned about outside the demo", async () => {
  const metadata = "http://169.254.169.254/v1";
  {
    await using gw = await startProcessGateway({ models: [chatModel("acme/chat", "up")] });
    const line = await gw.main.waitForLine((l) => l.includes("loopback or link-local"));
    assert.ok(line.includes("127.0.0.1"), line);
  }
  {
    await using allowed = await startProcessGateway({
      models: [chatModel("acme/chat", "up")],
      env: { SOVRA_ALLOW_LOCAL_UPSTREAMS: "true" },
    });
    assert.ok(!allowed.main.lines.some((l) => l.includes("loopback or link-local")));
  }
  const { localBaseUrls } = await import("../../src/catalog/base_url_check.ts");
  const found = localBaseUrls({
    providers: { meta: { base_url: metadata }, real: { base_url: "https://api.mistral.ai/v1" } },
  } as never);
  assert.deepEqual(found, [{ provider: "meta", host: "169.254.169.254" }]);
});
