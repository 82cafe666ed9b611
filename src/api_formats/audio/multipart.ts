/**
 * The transcription upload's `multipart/form-data` body (RFC 7578), read as it streams in.
 * The framing is `@remix-run/multipart-parser`'s (`MultipartParser`, fed chunk by chunk); this
 * module adds what the spec asks of the upload, enforced while reading so nothing beyond a
 * limit is ever buffered:
 *
 * | limit | default | on breach |
 * |---|---|---|
 * | the `file` part | 25 MB = 25 000 000 bytes (MB is 10^6 here) | 400, code `file` (param `file`) |
 * | the whole body | 26 MB = 26 000 000 bytes (also checked on `Content-Length`) | 400 `invalid_request` |
 * | the whole upload | 5 minutes from the start of reading | 400, code `upload_timeout` |
 * | a text field | 64 KiB (checked once the part is read; the body's limit bounds it) | 400 `invalid_request` |
 * | one part's headers | 8 KiB; at most 32 parts | 400 `invalid_request` |
 *
 * On any breach (and on the caller's `signal`) the body is cancelled: the rest is never read.
 * A connection that closes before the upload ends is the client leaving: 499 `client_closed`.
 * A preamble before the first boundary is skipped here (RFC 2046 allows one; the parser
 * expects the body to open with the boundary), and an epilogue after the last is ignored.
 */
import {
  MaxFileSizeExceededError,
  MaxHeaderSizeExceededError,
  MaxPartsExceededError,
  MaxTotalSizeExceededError,
  MultipartParseError,
  MultipartParser,
  type MultipartPart,
} from "@remix-run/multipart-parser";
import { clientClosed, GatewayError, invalidRequest, refusedField } from "../../errors.ts";
import { boundaryFromContentType, malformed, partHeaders } from "./multipart_headers.ts";

export interface MultipartLimits {
  maxFileBytes: number;
  maxRequestBytes: number;
  deadlineMs: number;
  maxFieldBytes: number;
  maxHeaderBytes: number;
  maxParts: number;
}

export const TRANSCRIPTION_UPLOAD_LIMITS: Readonly<MultipartLimits> = {
  maxFileBytes: 25_000_000,
  maxRequestBytes: 26_000_000,
  deadlineMs: 5 * 60_000,
  maxFieldBytes: 64 * 1024,
  maxHeaderBytes: 8 * 1024,
  maxParts: 32,
};

export interface UploadedFile {
  bytes: Uint8Array;
  /** The declared media type, only a hint: the container is detected from the bytes. */
  contentType: string | undefined;
  /** A known audio extension of the client's file name (the name itself is not kept). */
  nameExtension: string | undefined;
}

export interface MultipartForm {
  /** Text parts by name; a repeated name keeps its first value. */
  fields: ReadonlyMap<string, string>;
  /** The part named `file`, if any. */
  file: UploadedFile | undefined;
}

export interface MultipartOptions {
  limits?: Partial<MultipartLimits>;
  /** The request's `Content-Length` header, checked before anything is read. */
  contentLength?: string | null;
  /** Aborts the reading (client gone); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

const decoder = new TextDecoder();

export async function parseMultipartForm(
  body: ReadableStream<Uint8Array> | null,
  contentType: string | null | undefined,
  options: MultipartOptions = {},
): Promise<MultipartForm> {
  const limits = { ...TRANSCRIPTION_UPLOAD_LIMITS, ...options.limits };
  try {
    const boundary = boundaryFromContentType(contentType);
    if (body === null) throw invalidRequest("The request body is empty.");
    const declared = Number(options.contentLength ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limits.maxRequestBytes) {
      throw requestTooLarge(limits);
    }
    return await readForm(body, boundary, limits, options.signal);
  } catch (error) {
    // Covers failures before the reader took the body; `readForm` cancels its own reader.
    if (body !== null && !body.locked) await body.cancel(error).catch(() => {});
    throw error;
  }
}

async function readForm(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  limits: MultipartLimits,
  signal: AbortSignal | undefined,
): Promise<MultipartForm> {
  const parser = new MultipartParser(boundary, {
    maxHeaderSize: limits.maxHeaderBytes,
    // One limit for every part here: a text field is held to its own once read.
    maxFileSize: Math.max(limits.maxFileBytes, limits.maxFieldBytes),
    maxParts: limits.maxParts,
    maxTotalSize: limits.maxRequestBytes,
  });
  const form = new FormCollector(limits);
  const preamble = new PreambleSkipper(boundary);
  let ended = false;
  let total = 0;

  const reader = body.getReader();
  const stopped = stopSignal(limits.deadlineMs, signal);
  try {
    for (;;) {
      const result = await Promise.race([reader.read(), stopped.promise]);
      if (result.done) break;
      total += result.value.length;
      if (total > limits.maxRequestBytes) throw requestTooLarge(limits);
      if (ended) continue;
      const chunk = preamble.skip(result.value);
      if (chunk !== undefined) ended = write(parser, chunk, form, limits);
    }
    if (!ended && !closed(parser)) {
      throw invalidRequest("The multipart/form-data body ended before its closing boundary.");
    }
    return form.result();
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    // The connection closed before the upload ended (Deno: BadResource; the request's signal does
    // not abort): the client left, so the answer is 499, as for a JSON body.
    throw error instanceof Deno.errors.BadResource ? clientClosed() : error;
  } finally {
    stopped.dispose();
    reader.releaseLock();
  }
}

/** Feeds one chunk; true when the chunk runs past the closing boundary (into the epilogue). */
function write(
  parser: MultipartParser,
  chunk: Uint8Array,
  form: FormCollector,
  limits: MultipartLimits,
): boolean {
  try {
    for (const part of parser.write(chunk)) form.add(part);
  } catch (error) {
    // The parser refuses bytes after its end: they are the epilogue, which RFC 2046 ignores.
    if (isPlainParseError(error) && closed(parser)) return true;
    throw refusal(error, limits);
  }
  return false;
}

/** `finish()` throws until the closing boundary was read, and changes nothing (so: not per chunk). */
function closed(parser: MultipartParser): boolean {
  try {
    parser.finish();
    return true;
  } catch {
    return false;
  }
}

function isPlainParseError(error: unknown): boolean {
  return error instanceof MultipartParseError && !(
    error instanceof MaxFileSizeExceededError || error instanceof MaxHeaderSizeExceededError ||
    error instanceof MaxPartsExceededError || error instanceof MaxTotalSizeExceededError
  );
}

/** The parser's refusals as the spec's 400s. */
function refusal(error: unknown, limits: MultipartLimits): unknown {
  if (error instanceof MaxFileSizeExceededError) return fileTooLarge(limits);
  if (error instanceof MaxTotalSizeExceededError) return requestTooLarge(limits);
  if (error instanceof MaxHeaderSizeExceededError) {
    return invalidRequest("A multipart part has too large headers.");
  }
  if (error instanceof MaxPartsExceededError) {
    return invalidRequest(`The form has more than ${limits.maxParts} parts.`);
  }
  if (error instanceof MultipartParseError) return malformed();
  return error;
}

/** The parts as the form: text fields by name (the first of a repeated name), one file. */
class FormCollector {
  readonly #fields = new Map<string, string>();
  #file: UploadedFile | undefined;
  constructor(readonly limits: MultipartLimits) {}

  add(part: MultipartPart): void {
    const headers = partHeaders(part);
    if (headers.name === "file") {
      if (part.size > this.limits.maxFileBytes) throw fileTooLarge(this.limits);
      if (this.#file !== undefined) throw refusedField("file", "Send exactly one 'file' part.");
      this.#file = {
        bytes: part.bytes,
        contentType: headers.contentType,
        nameExtension: headers.nameExtension,
      };
      return;
    }
    if (part.size > this.limits.maxFieldBytes) throw fieldTooLarge(headers.name, this.limits);
    if (!this.#fields.has(headers.name)) this.#fields.set(headers.name, decoder.decode(part.bytes));
  }

  result(): MultipartForm {
    return { fields: this.#fields, file: this.#file };
  }
}

/**
 * Drops what comes before the first boundary. The parser wants the body to open with
 * `--boundary`; RFC 2046 allows a preamble, ended by a line break, before it.
 */
class PreambleSkipper {
  /** Read so far while no boundary was seen (at most the delimiter's length is kept). */
  #held: Uint8Array | undefined = CRLF;
  readonly #delimiter: string;
  constructor(boundary: string) {
    this.#delimiter = `\r\n--${boundary}`;
  }

  /** The bytes to hand the parser (from the first boundary on), or undefined while none. */
  skip(chunk: Uint8Array): Uint8Array | undefined {
    const held = this.#held;
    if (held === undefined) return chunk;
    const bytes = held.length === 0 ? chunk : joined(held, chunk);
    // latin1 maps each byte to one character, so a string index is a byte index.
    const at = latin1.decode(bytes).indexOf(this.#delimiter);
    if (at < 0) {
      this.#held = bytes.slice(Math.max(0, bytes.length - this.#delimiter.length + 1));
      return undefined;
    }
    this.#held = undefined;
    return bytes.subarray(at + 2);
  }
}

const CRLF = new Uint8Array([0x0d, 0x0a]);
const latin1 = new TextDecoder("latin1");

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** A promise that rejects at the deadline or on abort; `dispose` clears both. */
function stopSignal(deadlineMs: number, signal: AbortSignal | undefined) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(uploadTimeout(deadlineMs)), deadlineMs);
    if (signal !== undefined) {
      onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  promise.catch(() => {});
  return {
    promise,
    dispose: () => {
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
    },
  };
}

const mb = (bytes: number) => `${bytes / 1_000_000} MB (${bytes.toLocaleString("en")} bytes)`;

function fileTooLarge(limits: MultipartLimits): GatewayError {
  return refusedField("file", `The audio file is larger than ${mb(limits.maxFileBytes)}.`);
}

function requestTooLarge(limits: MultipartLimits): GatewayError {
  return invalidRequest(`The request body is larger than ${mb(limits.maxRequestBytes)}.`);
}

function fieldTooLarge(name: string, limits: MultipartLimits): GatewayError {
  const label = /^[A-Za-z0-9_.\[\]-]{1,64}$/.test(name) ? `The field '${name}'` : "A form field";
  return invalidRequest(`${label} is larger than ${limits.maxFieldBytes} bytes.`);
}

function uploadTimeout(deadlineMs: number): GatewayError {
  const limit = deadlineMs % 60_000 === 0
    ? `${deadlineMs / 60_000} minutes`
    : `${deadlineMs / 1000} seconds`;
  return new GatewayError(400, "upload_timeout", `The upload did not complete within ${limit}.`);
}
