/**
 * The one upstream transport: every provider call (openai-dialect endpoints, Bedrock, Vertex,
 * the Vertex token grant) is a POST sent here. One rule for each outcome:
 * - the caller's abort (client gone, idle cut) rethrows `signal.reason`, never a fetch error;
 * - a failure to connect is `connectFailure` (retryable `unavailable`);
 * - a non-2xx answer reads at most 64 KiB of its body (a body that breaks off counts with
 *   what arrived), scrubbed of credentials, and the dialect's `failure` mapper turns it into
 *   an `UpstreamFailure`.
 * A 2xx response is returned unread. Dialects keep only their URL, headers (signing, tokens),
 * body and failure mapper. Anchor: the AI SDK's `postToApi` and `handleFetchError`.
 */
import { connectFailure, type UpstreamFailure } from "../upstream_failure.ts";
import { headerSecrets, scrubSecrets } from "./scrub_secrets.ts";

export const MAX_ERROR_BODY = 64 * 1024;

export interface UpstreamPost {
  url: string;
  headers: HeadersInit;
  body: BodyInit;
  signal: AbortSignal;
  fetch: typeof fetch;
  /** A non-2xx answer (its capped body as text) → the failure to throw. */
  failure(response: Response, bodyText: string): UpstreamFailure;
}

export async function postUpstream(post: UpstreamPost): Promise<Response> {
  let response: Response;
  try {
    response = await post.fetch(post.url, {
      method: "POST",
      headers: post.headers,
      body: post.body,
      signal: post.signal,
    });
  } catch (error) {
    if (post.signal.aborted) throw post.signal.reason;
    throw connectFailure(error);
  }
  if (response.ok) return response;
  // Credentials never reach a client through a quoted request (scrub_secrets.ts).
  const text = scrubSecrets(await readErrorBody(response), headerSecrets(post.headers));
  throw post.failure(response, text);
}

/** Reads at most `MAX_ERROR_BODY` bytes of an error body, then lets the rest go. */
export async function readErrorBody(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
  } catch {
    // A body that breaks off is still an error answer; use what arrived.
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return new TextDecoder().decode(all.subarray(0, MAX_ERROR_BODY));
}
