/**
 * A streaming `multipart/form-data` reader (RFC 7578 over RFC 2046) for the transcription
 * upload. Limits are enforced while reading, so nothing beyond them is ever buffered:
 *
 * | limit | default | on breach |
 * |---|---|---|
 * | the `file` part | 25 MB = 25 000 000 bytes (MB is 10^6 here) | 400, code `file` (param `file`) |
 * | the whole body | 26 MB = 26 000 000 bytes (also checked on `Content-Length`) | 400 `invalid_request` |
 * | the whole upload | 5 minutes from the start of reading | 400, code `upload_timeout` |
 * | a text field | 64 KiB | 400 `invalid_request` |
 * | one part's headers | 8 KiB; at most 32 parts | 400 `invalid_request` |
 *
 * On any breach (and on the caller's `signal`) the body is cancelled: the rest is never read.
 * A connection that closes before the upload ends is the client leaving: 499 `client_closed`.
 */
import { clientClosed, GatewayError, invalidRequest, refusedField } from "../../errors.ts";
import { boundaryFromContentType, malformed, parsePartHeaders } from "./multipart_headers.ts";

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

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CRLF = encoder.encode("\r\n");
const CRLFCRLF = encoder.encode("\r\n\r\n");

type State = "preamble" | "delimiter" | "headers" | "body" | "epilogue";

interface OpenPart {
  name: string;
  chunks: Uint8Array[];
  size: number;
  contentType: string | undefined;
  nameExtension: string | undefined;
}

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
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const fields = new Map<string, string>();
  let file: UploadedFile | undefined;
  let parts = 0;
  let part: OpenPart | undefined;
  let state = "preamble" as State;
  // A virtual CRLF in front makes the first delimiter look like every later one.
  let buffer: Uint8Array = CRLF;
  let total = 0;

  const append = (data: Uint8Array) => {
    if (part === undefined || data.length === 0) return;
    const max = part.name === "file" ? limits.maxFileBytes : limits.maxFieldBytes;
    if (part.size + data.length > max) {
      throw part.name === "file" ? fileTooLarge(limits) : fieldTooLarge(part.name, limits);
    }
    part.chunks.push(data);
    part.size += data.length;
  };

  const closePart = () => {
    if (part === undefined) return;
    const bytes = concat(part.chunks, part.size);
    if (part.name === "file") {
      if (file !== undefined) throw refusedField("file", "Send exactly one 'file' part.");
      file = { bytes, contentType: part.contentType, nameExtension: part.nameExtension };
    } else if (!fields.has(part.name)) {
      fields.set(part.name, decoder.decode(bytes));
    }
    part = undefined;
  };

  /** Consumes what `buffer` allows; returns when more bytes are needed. */
  const advance = () => {
    for (;;) {
      switch (state) {
        case "preamble":
        case "body": {
          const at = indexOf(buffer, delimiter);
          if (at < 0) {
            const keep = Math.min(buffer.length, delimiter.length - 1);
            if (state === "body") append(buffer.subarray(0, buffer.length - keep));
            buffer = buffer.subarray(buffer.length - keep);
            return;
          }
          if (state === "body") {
            append(buffer.subarray(0, at));
            closePart();
          }
          buffer = buffer.subarray(at + delimiter.length);
          state = "delimiter";
          break;
        }
        case "delimiter": {
          if (buffer.length < 2) return;
          if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
            state = "epilogue";
            break;
          }
          const end = indexOf(buffer, CRLF);
          if (end < 0) {
            if (buffer.length > 256) throw malformed();
            return;
          }
          // Only transport padding (spaces, tabs) may stand between delimiter and CRLF.
          if (!buffer.subarray(0, end).every((b) => b === 0x20 || b === 0x09)) throw malformed();
          buffer = buffer.subarray(end + 2);
          state = "headers";
          break;
        }
        case "headers": {
          const end = indexOf(buffer, CRLFCRLF);
          if (end < 0) {
            if (buffer.length > limits.maxHeaderBytes) {
              throw invalidRequest("A multipart part has too large headers.");
            }
            return;
          }
          if (end > limits.maxHeaderBytes) {
            throw invalidRequest("A multipart part has too large headers.");
          }
          if (++parts > limits.maxParts) {
            throw invalidRequest(`The form has more than ${limits.maxParts} parts.`);
          }
          const headers = parsePartHeaders(decoder.decode(buffer.subarray(0, end)));
          part = { ...headers, chunks: [], size: 0 };
          buffer = buffer.subarray(end + 4);
          state = "body";
          break;
        }
        case "epilogue":
          buffer = new Uint8Array(0);
          return;
        default: {
          const unreachable: never = state;
          throw new Error(`Unknown parser state '${String(unreachable)}'.`);
        }
      }
    }
  };

  const reader = body.getReader();
  const stopped = stopSignal(limits.deadlineMs, signal);
  try {
    for (;;) {
      const result = await Promise.race([reader.read(), stopped.promise]);
      if (result.done) break;
      const chunk = result.value;
      total += chunk.length;
      if (total > limits.maxRequestBytes) throw requestTooLarge(limits);
      buffer = buffer.length === 0 ? chunk : joinTwo(buffer, chunk);
      advance();
    }
    if (state !== "epilogue") {
      throw invalidRequest("The multipart/form-data body ended before its closing boundary.");
    }
    return { fields, file };
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

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  let i = haystack.indexOf(first);
  while (i >= 0 && i <= last) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
    i = haystack.indexOf(first, i + 1);
  }
  return -1;
}

function joinTwo(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
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
