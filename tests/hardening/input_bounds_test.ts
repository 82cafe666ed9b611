/**
 * Attack (issue 17, item 8): input bounds everywhere. A transcription `user` over 256
 * characters is refused before any provider call (not truncated silently), like on every
 * other endpoint.
 */
import assert from "node:assert/strict";
import { startHarness } from "../helpers/harness.ts";
import { makeWav } from "../helpers/audio.ts";
import { audioParts, transcribe, transcriptionModel } from "../audio_http/audio_http_support.ts";

Deno.test("attack — a transcription user of 300 characters is refused with 400 naming 'user'", async () => {
  const h = await startHarness({ models: [transcriptionModel("acme/whisper", "sim-whisper")] });
  try {
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
  } finally {
    await h.close();
  }
});
