/**
 * The fields of a `POST /v1/audio/transcriptions` form, checked before any audio is parsed
 * or any provider called. Unknown fields are ignored (never forwarded).
 */
import { invalidRequest, refusedField } from "../../errors.ts";
import type { TranscriptionRequest } from "../../providers/adapter.ts";
import type { MeasuredAudio } from "./audio_duration.ts";
import type { MultipartForm, UploadedFile } from "./multipart.ts";
import { END_USER_MAX } from "../../canonical/end_user.ts";

export type TranscriptionResponseFormat = "json" | "text";

export interface TranscriptionForm {
  model: string;
  file: UploadedFile;
  /** The end-user id for the request metadata; not forwarded. */
  user: string | undefined;
  fields: TranscriptionRequest["fields"];
}

const FALSE_VALUES = new Set(["", "false", "0"]);

export function validateTranscriptionForm(form: MultipartForm): TranscriptionForm {
  const field = (name: string): string | undefined => form.fields.get(name);

  const stream = field("stream");
  if (stream !== undefined && !FALSE_VALUES.has(stream.trim().toLowerCase())) {
    throw refusedField("stream", "Streaming is not supported for transcriptions.");
  }
  const model = field("model")?.trim();
  if (model === undefined || model === "") {
    throw invalidRequest("Missing required field 'model'.", "model");
  }
  const responseFormat = readResponseFormat(field("response_format"));
  const temperature = field("temperature")?.trim();
  if (temperature !== undefined && temperature !== "" && !Number.isFinite(Number(temperature))) {
    throw invalidRequest("Field 'temperature' must be a number.", "temperature");
  }
  if (form.file === undefined) throw invalidRequest("Missing required field 'file'.", "file");
  const user = nonEmpty(field("user"));
  if (user !== undefined && user.length > END_USER_MAX) {
    throw invalidRequest(`Field 'user' must be at most ${END_USER_MAX} characters.`, "user");
  }

  const fields: TranscriptionRequest["fields"] = { responseFormat };
  const language = nonEmpty(field("language"));
  const prompt = nonEmpty(field("prompt"));
  if (language !== undefined) fields.language = language;
  if (prompt !== undefined) fields.prompt = prompt;
  if (temperature !== undefined && temperature !== "") fields.temperature = temperature;
  return { model, file: form.file, user, fields };
}

/** The adapter's request: the audio under a generated name from the detected container. */
export function toTranscriptionRequest(
  form: TranscriptionForm,
  measured: MeasuredAudio,
): TranscriptionRequest {
  return {
    audio: form.file.bytes,
    fileName: `audio.${measured.extension}`,
    mimeType: measured.mimeType,
    fields: form.fields,
  };
}

function readResponseFormat(value: string | undefined): TranscriptionResponseFormat {
  const format = value?.trim() ?? "";
  switch (format) {
    case "":
    case "json":
      return "json";
    case "text":
      return "text";
    default:
      throw refusedField(
        "response_format",
        `Unsupported response_format '${format.slice(0, 32)}'; use 'json' or 'text'.`,
      );
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
