/**
 * The transport of every `openai`-dialect call (chat, embeddings, transcription, speech):
 * the Bearer key from the environment, the fetch with the call's abort signal; a failed
 * answer is mapped by `errors.ts`, so all four endpoints classify alike.
 */
import type { UpstreamCall } from "../adapter.ts";
import { UpstreamFailure } from "../upstream_failure.ts";
import { postUpstream } from "../transport/post_upstream.ts";
import { failureFromResponse } from "./errors.ts";

/** Where the upstream calls get their key and their fetch (tests pass their own). */
export interface OpenAiDeps {
  /** The environment, or a reader of it (`Config.secret`), holding `api_key_env`. */
  env: Readonly<Record<string, string | undefined>> | ((name: string) => string | undefined);
  fetch?: typeof fetch;
}

function readEnv(env: OpenAiDeps["env"], name: string): string | undefined {
  return typeof env === "function" ? env(name) : env[name];
}

/** The full URL of one endpoint path under the provider's `base_url` (which ends in `/v1`). */
export function endpointUrl(call: UpstreamCall, path: string): string {
  return call.route.provider.base_url + path;
}

/**
 * Headers with the provider's Bearer key, when the provider names one and it is set (as the
 * chat adapter does: an unset key leaves the header out and the provider's 401 decides).
 */
export function authHeaders(call: UpstreamCall, deps: OpenAiDeps): Record<string, string> {
  const name = call.route.provider.api_key_env;
  const key = name === undefined ? undefined : readEnv(deps.env, name);
  return key ? { authorization: `Bearer ${key}` } : {};
}

/**
 * Sends one request through the shared transport. Resolves with a 2xx response; every other
 * outcome throws an `UpstreamFailure`, except an abort of `call.signal` (its reason).
 */
export function sendUpstream(
  call: UpstreamCall,
  deps: OpenAiDeps,
  url: string,
  init: { headers: Record<string, string>; body: BodyInit },
): Promise<Response> {
  return postUpstream({
    url,
    headers: init.headers,
    body: init.body,
    signal: call.signal,
    fetch: deps.fetch ?? fetch,
    failure: failureFromResponse,
  });
}

/** A failure for a 2xx answer the gateway cannot read (treated like a broken upstream). */
export function unreadableAnswer(cause?: unknown): UpstreamFailure {
  return new UpstreamFailure(
    "unavailable",
    "The provider returned an unreadable answer.",
    cause === undefined ? {} : { cause },
  );
}

/** Reads a 2xx body as text, mapping a broken body to `unavailable`. */
export async function readBodyText(response: Response, signal: AbortSignal): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (signal.aborted) throw error;
    throw unreadableAnswer(error);
  }
}

export { parseJson } from "../parse_json.ts";
