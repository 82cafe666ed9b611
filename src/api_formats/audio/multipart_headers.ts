/**
 * The headers of `multipart/form-data` (RFC 7578, RFC 2046): the boundary from the request's
 * `Content-Type`, and what a part's `Content-Disposition` and `Content-Type` (as the parser
 * read them, RFC 6266 `filename*` included) say. Nothing here keeps a client file name: only a
 * safe extension leaves.
 */
import type { MultipartPart } from "@remix-run/multipart-parser";
import { invalidRequest } from "../../errors.ts";

/** Extensions the transcription upstreams accept; anything else yields `undefined`. */
const AUDIO_EXTENSIONS = new Set([
  "flac",
  "m4a",
  "mp3",
  "mp4",
  "mpeg",
  "mpga",
  "oga",
  "ogg",
  "opus",
  "wav",
  "webm",
]);

export interface PartHeaders {
  name: string;
  /** A lower-case audio extension from the client's file name, if it had a known one. */
  nameExtension: string | undefined;
  /** The declared media type (essence only, lower case), if it looked like one. */
  contentType: string | undefined;
}

/** RFC 2046 boundary: 1–70 characters from a fixed set. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** Reads the boundary of a `multipart/form-data` content type; throws a 400 otherwise. */
export function boundaryFromContentType(contentType: string | null | undefined): string {
  const [essence, ...rest] = (contentType ?? "").split(";");
  if (essence?.trim().toLowerCase() !== "multipart/form-data") {
    throw invalidRequest("The request must be sent as multipart/form-data.");
  }
  const boundary = parameters(rest.join(";")).get("boundary");
  if (boundary === undefined || !BOUNDARY.test(boundary)) {
    throw invalidRequest("The multipart/form-data content type has no valid boundary.");
  }
  return boundary;
}

/**
 * A part's name, file-name extension and media type, from the headers the parser read. A part
 * without a `form-data` disposition and a name is malformed; headers that are not UTF-8 too.
 */
export function partHeaders(part: MultipartPart): PartHeaders {
  let disposition: string | undefined;
  let name: string | undefined;
  let fileName: string | undefined;
  let mediaType: string | undefined;
  try {
    disposition = part.headers["content-disposition"];
    name = part.name;
    fileName = part.filename;
    mediaType = part.mediaType;
  } catch {
    throw malformed();
  }
  if (disposition?.split(";")[0]?.trim().toLowerCase() !== "form-data") throw malformed();
  if (name === undefined || name === "") throw malformed();
  const essence = mediaType?.trim().toLowerCase();
  return {
    name,
    nameExtension: fileName === undefined ? undefined : safeExtension(fileName),
    contentType: essence !== undefined && MEDIA_TYPE.test(essence) ? essence : undefined,
  };
}

/** The extension of a client file name, when it is one of the known audio extensions. */
export function safeExtension(fileName: string): string | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  if (dot < 0) return undefined;
  const extension = base.slice(dot + 1).toLowerCase();
  return AUDIO_EXTENSIONS.has(extension) ? extension : undefined;
}

/** `; key=value; key="quoted \" value"` → lower-case keys to unquoted values. */
function parameters(text: string): Map<string, string> {
  const result = new Map<string, string>();
  const pattern = /;?\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/gy;
  let match: RegExpExecArray | null;
  const input = text.startsWith(";") ? text : `;${text}`;
  while ((match = pattern.exec(input)) !== null) {
    const key = match[1]!.toLowerCase();
    const quoted = match[2];
    const value = quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : match[3]!.trim();
    if (!result.has(key)) result.set(key, value);
    if (pattern.lastIndex >= input.length) break;
  }
  return result;
}

export function malformed(): Error {
  return invalidRequest("The multipart/form-data body is malformed.");
}
