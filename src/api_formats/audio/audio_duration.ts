/**
 * How long an uploaded recording is, as the gateway measures it for billing. The container
 * is detected from the bytes (magic numbers), never from the client's file name or declared
 * type; `music-metadata` then reads the duration with the parser for that container.
 */
// Loaded on the first transcription: the parser costs ~19 MB of RSS that most instances
// never need.
let musicMetadata: Promise<typeof import("music-metadata")> | undefined;
const loadParser = () => musicMetadata ??= import("music-metadata");
import { GatewayError } from "../../errors.ts";

export type AudioExtension = "wav" | "mp3" | "flac" | "ogg" | "m4a" | "webm";

export interface MeasuredAudio {
  seconds: number;
  /** The safe extension of the detected container (for the generated upstream file name). */
  extension: AudioExtension;
  mimeType: string;
}

const MIME_TYPES: Record<AudioExtension, string> = {
  wav: "audio/wav",
  mp3: "audio/mpeg",
  flac: "audio/flac",
  ogg: "audio/ogg",
  m4a: "audio/mp4",
  webm: "audio/webm",
};

/**
 * Throws a 400 with code `file` when the bytes are not one of the six supported containers,
 * cannot be read, or carry no positive duration.
 * `mimeHint` (the client's declared type) is used only for headerless MPEG audio, whose
 * frames have no magic number at a fixed place; the parsed result must still be MP3.
 */
export async function measureAudioSeconds(
  bytes: Uint8Array,
  mimeHint?: string,
): Promise<MeasuredAudio> {
  const extension = sniffContainer(bytes) ??
    (mimeHint === "audio/mpeg" || mimeHint === "audio/mp3" ? "mp3" : undefined);
  if (extension === undefined) {
    throw unreadable("The audio format is not supported; send wav, mp3, flac, ogg, m4a or webm.");
  }
  const mimeType = MIME_TYPES[extension];
  let format;
  try {
    const { parseBuffer } = await loadParser();
    ({ format } = await parseBuffer(
      bytes,
      { mimeType, size: bytes.length },
      { duration: true, skipCovers: true },
    ));
  } catch {
    throw unreadable("The audio file could not be read.");
  }
  if (extension === "mp3" && !/layer 3/i.test(format.codec ?? "")) {
    throw unreadable("The audio file could not be read.");
  }
  if (extension === "webm" && !/webm/i.test(format.container ?? "")) {
    throw unreadable("The audio format is not supported; send wav, mp3, flac, ogg, m4a or webm.");
  }
  const seconds = format.duration;
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) {
    throw unreadable("The duration of the audio file could not be determined.");
  }
  return { seconds, extension, mimeType };
}

/** Float noise tolerated before a second counts as started (2.0000001 bills 2). */
export const BILLABLE_SECONDS_TOLERANCE = 1e-6;

/** Billing unit: every started second, at least one. */
export function billableSeconds(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`Audio seconds must be a finite non-negative number, got '${seconds}'.`);
  }
  return Math.max(1, Math.ceil(seconds - BILLABLE_SECONDS_TOLERANCE));
}

function sniffContainer(bytes: Uint8Array): AudioExtension | undefined {
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WAVE")) return "wav";
  if (ascii(bytes, 0, "fLaC")) return "flac";
  if (ascii(bytes, 0, "OggS")) return "ogg";
  if (ascii(bytes, 4, "ftyp")) return "m4a";
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) {
    return "webm";
  }
  if (ascii(bytes, 0, "ID3")) return id3Wrapped(bytes);
  if (isMpegFrameSync(bytes, 0)) return "mp3";
  return undefined;
}

/** An ID3v2 tag may precede MP3 (or FLAC) data; looks at what follows the tag. */
function id3Wrapped(bytes: Uint8Array): AudioExtension | undefined {
  if (bytes.length < 10) return undefined;
  const size = ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) |
    ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
  const footer = (bytes[5]! & 0x10) !== 0 ? 10 : 0;
  const after = 10 + size + footer;
  if (ascii(bytes, after, "fLaC")) return "flac";
  return "mp3";
}

function isMpegFrameSync(bytes: Uint8Array, at: number): boolean {
  const a = bytes[at];
  const b = bytes[at + 1];
  return a === 0xff && b !== undefined && (b & 0xe0) === 0xe0;
}

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) {
    if (bytes[at + i] !== text.charCodeAt(i)) return false;
  }
  return true;
}

function unreadable(message: string): GatewayError {
  return new GatewayError(400, "file", message, { param: "file" });
}
