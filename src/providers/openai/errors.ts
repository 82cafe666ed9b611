/** Upstream HTTP errors of `openai`-dialect providers → UpstreamFailure. */
import {
  hasErrorShape,
  kindForStatus,
  parseRetryAfter,
  UpstreamFailure,
} from "../upstream_failure.ts";

const MAX_ERROR_BODY = 64 * 1024;

/** Reads at most 64 KiB of an error body. */
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
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  return new TextDecoder().decode(all.subarray(0, MAX_ERROR_BODY));
}

function providerMessage(parsed: unknown): string | undefined {
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const p = parsed as { message?: unknown; error?: unknown; detail?: unknown };
  if (typeof p.message === "string") return p.message;
  if (typeof p.error === "string") return p.error;
  if (typeof p.message === "object" && p.message !== null) return JSON.stringify(p.message);
  if (typeof p.detail === "string") return p.detail;
  return undefined;
}

/** A non-2xx answer as an UpstreamFailure (rule 4 classification, passthrough 4xx). */
export async function failureFromResponse(response: Response): Promise<UpstreamFailure> {
  const text = await readErrorBody(response);
  const status = response.status;
  const kind = kindForStatus(status);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (kind === "invalid_request") {
    if (hasErrorShape(parsed)) {
      return new UpstreamFailure("passthrough", "The provider rejected the request.", {
        status,
        body: text,
      });
    }
    // Capped like the other adapters: a provider's validation text can be long.
    const message = providerMessage(parsed)?.slice(0, 500);
    return new UpstreamFailure(
      "invalid_request",
      message
        ? `The provider rejected the request: ${message}`
        : "The provider rejected the request.",
      { status },
    );
  }
  const retryAfterSeconds = parseRetryAfter(response.headers.get("retry-after"));
  return new UpstreamFailure(kind, `The provider answered HTTP ${status}.`, {
    status,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
}
