/**
 * `POST {base_url}/audio/transcriptions` for the `openai` dialect: a fresh multipart body
 * with the audio under the generated name (`audio.<ext>`; the client's file name never
 * leaves the gateway) and only the fields the gateway knows. Fields listed in the
 * provider's `unsupported_parameters` or missing from its request schema are left out (Mistral
 * has no `response_format`); a JSON answer to a `text` request is then reduced to its `text`.
 */
import type { TranscriptionRequest, TranscriptionResult, UpstreamCall } from "../adapter.ts";
import { isJsonContentType } from "../../util/content_type.ts";
import {
  authHeaders,
  endpointUrl,
  type OpenAiDeps,
  parseJson,
  readBodyText,
  sendUpstream,
  unreadableAnswer,
} from "./http.ts";
import { endpointSchema } from "./conform_request.ts";
import { providerFieldName } from "../../catalog/provider_schema.ts";

export async function openaiTranscription(
  request: TranscriptionRequest,
  call: UpstreamCall,
  deps: OpenAiDeps,
): Promise<TranscriptionResult> {
  const unsupported = new Set(call.route.provider.unsupported_parameters);
  const schema = endpointSchema(call.route, "transcription");
  const sendable = (name: string) =>
    !unsupported.has(name) &&
    (schema === undefined || schema.fields.includes(providerFieldName(schema, name)));
  const form = new FormData();
  const audio = request.audio as Uint8Array<ArrayBuffer>;
  form.append("file", new File([audio], request.fileName, { type: request.mimeType }));
  form.append("model", call.route.route.upstream_model);
  const optional: Array<[string, string | undefined]> = [
    ["language", request.fields.language],
    ["prompt", request.fields.prompt],
    ["temperature", request.fields.temperature],
    ["response_format", request.fields.responseFormat],
  ];
  for (const [name, value] of optional) {
    if (value !== undefined && sendable(name)) {
      form.append(schema === undefined ? name : providerFieldName(schema, name), value);
    }
  }

  const response = await sendUpstream(call, deps, endpointUrl(call, "/audio/transcriptions"), {
    headers: { ...authHeaders(call, deps), accept: "application/json, text/plain" },
    body: form,
  });
  const text = await readBodyText(response, call.signal);
  const declaredJson = isJsonContentType(response.headers.get("content-type"));
  const parsed = parseJson(text);
  const answer = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? parsed as { text?: unknown }
    : undefined;
  if (declaredJson && answer === undefined) throw unreadableAnswer();

  switch (request.fields.responseFormat) {
    case "json": {
      if (answer !== undefined) return { body: text, contentType: "application/json" };
      // A provider that answered in plain text: give the client the JSON it asked for.
      return { body: JSON.stringify({ text }), contentType: "application/json" };
    }
    case "text": {
      if (!declaredJson) return { body: text, contentType: "text/plain; charset=utf-8" };
      if (typeof answer?.text !== "string") throw unreadableAnswer();
      return { body: answer.text, contentType: "text/plain; charset=utf-8" };
    }
    default: {
      const unknown: never = request.fields.responseFormat;
      throw new Error(`Unknown response format '${String(unknown)}'.`);
    }
  }
}
