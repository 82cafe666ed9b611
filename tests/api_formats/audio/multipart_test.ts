import assert from "node:assert/strict";
import { parseMultipartForm } from "../../../src/api_formats/audio/multipart.ts";
import { GatewayError } from "../../../src/errors.ts";
import {
  chunkedStream,
  concat,
  generatedStream,
  makeWav,
  multipartBody,
} from "../../helpers/audio.ts";

const BOUNDARY = "----sovra-test-boundary-7MA4YWxkTrZu0gW";
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const encoder = new TextEncoder();

function sampleForm() {
  // Bytes that contain CR, LF, dashes and a near-boundary to stress the scanner.
  const audio = concat([
    makeWav({ seconds: 0.05 }),
    encoder.encode(`\r\n--${BOUNDARY.slice(0, -1)}X\r\n--\r\n`),
  ]);
  const body = multipartBody(BOUNDARY, [
    { name: "model", value: "mistral/voxtral-mini" },
    { name: "language", value: "de" },
    { name: "file", value: audio, filename: "Meeting Notes (Anna).WAV", contentType: "audio/wav" },
    { name: "prompt", value: "Grüße – ein Test\r\nmit zwei Zeilen" },
  ]);
  return { audio, body };
}

async function expectGatewayError(promise: Promise<unknown>, status: number, code: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof GatewayError, `expected a GatewayError, got ${error}`);
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    return true;
  });
}

Deno.test("parseMultipartForm — reads text fields and the file part", async () => {
  const { audio, body } = sampleForm();
  const form = await parseMultipartForm(chunkedStream(body, 64 * 1024), CONTENT_TYPE);
  assert.equal(form.fields.get("model"), "mistral/voxtral-mini");
  assert.equal(form.fields.get("language"), "de");
  assert.equal(form.fields.get("prompt"), "Grüße – ein Test\r\nmit zwei Zeilen");
  assert.equal(form.fields.has("file"), false);
  assert.ok(form.file);
  assert.deepEqual(form.file.bytes, audio);
  assert.equal(form.file.contentType, "audio/wav");
  assert.equal(form.file.nameExtension, "wav");
  assert.equal(JSON.stringify(form).includes("Meeting"), false);
});

Deno.test("parseMultipartForm — the same result for every chunk size, 1-byte chunks too", async () => {
  const { audio, body } = sampleForm();
  for (const size of [1, 2, 3, 7, 13, 40, 41, 97, 1000]) {
    const form = await parseMultipartForm(chunkedStream(body, size), CONTENT_TYPE);
    assert.deepEqual(form.file?.bytes, audio, `chunk size ${size}`);
    assert.equal(form.fields.get("prompt"), "Grüße – ein Test\r\nmit zwei Zeilen");
    assert.equal(form.fields.get("model"), "mistral/voxtral-mini");
  }
});

Deno.test("parseMultipartForm — accepts a preamble, quoted boundary and padding", async () => {
  const text = `preamble to ignore\r\n--${BOUNDARY}  \r\n` +
    `content-disposition: form-data; name="model"\r\n\r\nm1\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''x%20y.mp3\r\n` +
    `\r\nabc\r\n--${BOUNDARY}--`;
  const form = await parseMultipartForm(
    chunkedStream(encoder.encode(text), 5),
    `multipart/form-data; charset=utf-8; boundary="${BOUNDARY}"`,
  );
  assert.equal(form.fields.get("model"), "m1");
  assert.equal(new TextDecoder().decode(form.file?.bytes), "abc");
  assert.equal(form.file?.nameExtension, "mp3");
  assert.equal(form.file?.contentType, undefined);
});

Deno.test("parseMultipartForm — an unknown or hostile file name yields no extension", async () => {
  for (const filename of ["../../etc/passwd", "x.exe", "noext", "a.wav.sh"]) {
    const body = multipartBody(BOUNDARY, [{ name: "file", value: "x", filename }]);
    const form = await parseMultipartForm(chunkedStream(body, 100), CONTENT_TYPE);
    assert.equal(form.file?.nameExtension, undefined, filename);
  }
});

Deno.test("parseMultipartForm — refuses a non-multipart type, a missing end and two files", async () => {
  const body = multipartBody(BOUNDARY, [{ name: "model", value: "m" }]);
  await expectGatewayError(
    parseMultipartForm(chunkedStream(body, 10), "application/json"),
    400,
    "invalid_request",
  );
  await expectGatewayError(
    parseMultipartForm(chunkedStream(body.subarray(0, body.length - 8), 10), CONTENT_TYPE),
    400,
    "invalid_request",
  );
  const two = multipartBody(BOUNDARY, [
    { name: "file", value: "a", filename: "a.wav" },
    { name: "file", value: "b", filename: "b.wav" },
  ]);
  await expectGatewayError(parseMultipartForm(chunkedStream(two, 10), CONTENT_TYPE), 400, "file");
});

function formAround(fileBytes: number) {
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  return generatedStream(head, fileBytes, tail);
}

Deno.test("parseMultipartForm — a file of exactly the limit passes", async () => {
  const { stream } = formAround(100_000);
  const form = await parseMultipartForm(stream, CONTENT_TYPE, {
    limits: { maxFileBytes: 100_000 },
  });
  assert.equal(form.file?.bytes.length, 100_000);
});

Deno.test("parseMultipartForm — a file of 25 MB plus one byte is refused and cut off", async () => {
  const { stream, state } = formAround(25_000_001);
  await expectGatewayError(parseMultipartForm(stream, CONTENT_TYPE), 400, "file");
  assert.equal(state.cancelled, true);
  assert.ok(state.sent < 25_000_001 + 128 * 1024, "reading stopped near the limit");
});

Deno.test("parseMultipartForm — a request over 26 MB is refused while reading", async () => {
  // The file stays under its own limit: only the whole body is too large.
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="pad"\r\n\r\n`,
  );
  const { stream, state } = generatedStream(
    head,
    26_000_001,
    encoder.encode(`\r\n--${BOUNDARY}--`),
  );
  await expectGatewayError(
    parseMultipartForm(stream, CONTENT_TYPE, { limits: { maxFieldBytes: 30_000_000 } }),
    400,
    "invalid_request",
  );
  assert.equal(state.cancelled, true);
  assert.ok(state.sent <= 26_000_000 + 64 * 1024);
});

Deno.test("parseMultipartForm — a declared Content-Length over 26 MB is refused before reading", async () => {
  const { stream, state } = formAround(10);
  await expectGatewayError(
    parseMultipartForm(stream, CONTENT_TYPE, { contentLength: "26000001" }),
    400,
    "invalid_request",
  );
  assert.equal(state.sent, 0);
  assert.equal(state.cancelled, true);
});

Deno.test("parseMultipartForm — a slow upload is cut off at the deadline", async () => {
  let cancelled = false;
  const stalled = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`--${BOUNDARY}\r\n`));
      // …and nothing more: the client stalls.
    },
    cancel() {
      cancelled = true;
    },
  });
  await expectGatewayError(
    parseMultipartForm(stalled, CONTENT_TYPE, { limits: { deadlineMs: 30 } }),
    400,
    "upload_timeout",
  );
  assert.equal(cancelled, true);
});

Deno.test("parseMultipartForm — an aborted signal stops the reading", async () => {
  const controller = new AbortController();
  let cancelled = false;
  const stalled = new ReadableStream<Uint8Array>({
    cancel() {
      cancelled = true;
    },
  });
  const reason = new Error("client gone");
  const parsing = parseMultipartForm(stalled, CONTENT_TYPE, { signal: controller.signal });
  controller.abort(reason);
  await assert.rejects(parsing, (error) => error === reason);
  assert.equal(cancelled, true);
});

Deno.test("parseMultipartForm — a Deno.serve request body streams through the parser", async () => {
  const { audio, body } = sampleForm();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const form = await parseMultipartForm(req.body, req.headers.get("content-type"), {
      contentLength: req.headers.get("content-length"),
    });
    return Response.json({ size: form.file?.bytes.length, model: form.fields.get("model") });
  });
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
      method: "POST",
      headers: { "content-type": CONTENT_TYPE },
      body: chunkedStream(body, 333),
    });
    assert.deepEqual(await response.json(), { size: audio.length, model: "mistral/voxtral-mini" });
  } finally {
    await server.shutdown();
  }
});

Deno.test("parseMultipartForm — behind Deno.serve, an oversize file answers 400 mid-upload", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    try {
      await parseMultipartForm(req.body, req.headers.get("content-type"), {
        limits: { maxFileBytes: 100_000 },
      });
      return new Response("accepted");
    } catch (error) {
      if (error instanceof GatewayError) return error.toResponse();
      throw error;
    }
  });
  try {
    const { stream } = formAround(1_000_000);
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
      method: "POST",
      headers: { "content-type": CONTENT_TYPE },
      body: stream,
    });
    assert.equal(response.status, 400);
    const body = await response.json();
    assert.equal(body.error.code, "file");
    assert.equal(body.error.param, "file");
  } finally {
    await server.shutdown();
  }
});

Deno.test("parseMultipartForm — an epilogue after the closing boundary is ignored", async () => {
  const body = concat([
    multipartBody(BOUNDARY, [{ name: "model", value: "m" }]),
    encoder.encode("an epilogue, in a chunk of its own"),
  ]);
  for (const size of [3, body.length - 10]) {
    const form = await parseMultipartForm(chunkedStream(body, size), CONTENT_TYPE);
    assert.equal(form.fields.get("model"), "m", `chunk size ${size}`);
  }
});

Deno.test("parseMultipartForm — a text field over 64 KiB, headers over 8 KiB, 33 parts: 400", async () => {
  const field = multipartBody(BOUNDARY, [{ name: "prompt", value: "x".repeat(64 * 1024 + 1) }]);
  await expectGatewayError(
    parseMultipartForm(chunkedStream(field, 4096), CONTENT_TYPE),
    400,
    "invalid_request",
  );
  const header = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="m"; x="${"y".repeat(8200)}"\r\n\r\n` +
      `v\r\n--${BOUNDARY}--`,
  );
  await expectGatewayError(
    parseMultipartForm(chunkedStream(header, 4096), CONTENT_TYPE),
    400,
    "invalid_request",
  );
  const parts = multipartBody(
    BOUNDARY,
    Array.from({ length: 33 }, (_, i) => ({ name: `f${i}`, value: "v" })),
  );
  await expectGatewayError(
    parseMultipartForm(chunkedStream(parts, 4096), CONTENT_TYPE),
    400,
    "invalid_request",
  );
});
