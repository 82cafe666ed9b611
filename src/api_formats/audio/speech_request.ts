/**
 * The client's `POST /v1/audio/speech` body, and its check against the catalog model
 * (input length in Unicode code points, voice list, response formats), all before any
 * provider call.
 */
import { z } from "zod";
import { EndUserId } from "../../canonical/end_user.ts";
import { AudioFormat, type Model } from "../../catalog/schema.ts";
import { refusedField } from "../../errors.ts";
import { zodFailure } from "../zod_failure.ts";

export const SPEECH_RESPONSE_FORMATS = AudioFormat.options;
export const DEFAULT_MAX_INPUT_CHARACTERS = 4096;

export const SpeechRequestSchema = z.looseObject({
  model: z.string().min(1).describe("A speech model id, '<provider>/<model>'."),
  input: z.string().min(1).describe(
    "The text to speak; at most 4096 characters (Unicode code points), less for some models.",
  ),
  voice: z.string().min(1).describe("One of the model's catalog voices."),
  response_format: AudioFormat.optional().describe(
    "Audio format; 'mp3' by default, 'wav' for models that only produce wav.",
  ),
  speed: z.number().positive().optional(),
  user: EndUserId.optional().describe("An end-user id, kept in the request metadata."),
  stream: z.unknown().optional().describe("Not supported: a truthy value is refused with 400."),
});
export type SpeechRequestBody = z.infer<typeof SpeechRequestSchema>;

/** Validates a parsed JSON body; throws the spec's 400s as `GatewayError`. */
export function parseSpeechRequest(raw: unknown): SpeechRequestBody {
  if (typeof raw === "object" && raw !== null && "stream" in raw) {
    if ((raw as { stream?: unknown }).stream) {
      throw refusedField("stream", "Streaming is not supported for speech.");
    }
  }
  const result = SpeechRequestSchema.safeParse(raw);
  if (!result.success) {
    throw zodFailure(result.error, {
      refused: ["response_format"],
      messages: { response_format: unsupportedFormat(SPEECH_RESPONSE_FORMATS) },
    });
  }
  return result.data;
}

export interface ValidatedSpeech {
  input: string;
  voice: string;
  responseFormat: AudioFormat;
  /** Billing unit: Unicode code points of `input`. */
  characters: number;
}

export function validateSpeechRequest(body: SpeechRequestBody, model: Model): ValidatedSpeech {
  const characters = countCharacters(body.input);
  const maxCharacters = model.limits?.max_input_characters ?? DEFAULT_MAX_INPUT_CHARACTERS;
  if (characters > maxCharacters) {
    throw refusedField(
      "input",
      `Input is ${characters} characters long; model '${model.id}' accepts at most ${maxCharacters}.`,
    );
  }
  const voices = model.voices;
  if (voices !== undefined && !voices.includes(body.voice)) {
    throw refusedField(
      "voice",
      `Voice '${body.voice.slice(0, 64)}' is not available for model '${model.id}'; ` +
        `valid voices: ${voices.map((v) => `'${v}'`).join(", ")}.`,
    );
  }
  const allowed = model.limits?.response_formats ?? SPEECH_RESPONSE_FORMATS;
  const responseFormat = body.response_format ?? defaultFormat(allowed);
  if (!allowed.includes(responseFormat)) {
    throw refusedField("response_format", unsupportedFormat(allowed, responseFormat, model.id));
  }
  return { input: body.input, voice: body.voice, responseFormat, characters };
}

/** Unicode code points, not UTF-16 units or bytes ("äöü😀" counts 4). */
export function countCharacters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** `mp3`, unless the model cannot produce it: then `wav` if it can, else its first format. */
function defaultFormat(allowed: readonly AudioFormat[]): AudioFormat {
  if (allowed.includes("mp3")) return "mp3";
  if (allowed.includes("wav")) return "wav";
  return allowed[0] ?? "mp3";
}

function unsupportedFormat(
  allowed: readonly AudioFormat[],
  requested?: string,
  modelId?: string,
): string {
  const list = allowed.map((f) => `'${f}'`).join(", ");
  if (requested === undefined) return `Unsupported response_format; use one of ${list}.`;
  return `Response format '${requested}' is not available for model '${modelId}'; use one of ${list}.`;
}
