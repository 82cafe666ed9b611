/**
 * A webhook receiver on 127.0.0.1 that verifies Standard Webhooks signatures on its own, with
 * node:crypto (not the gateway's `standardwebhooks` package): HMAC-SHA256 over
 * `${webhook-id}.${webhook-timestamp}.${body}` keyed by the base64 part of the `whsec_` secret,
 * compared with each `v1,` signature in `webhook-signature`. Answers with the statuses the test
 * scripts (then 204), and keeps every delivery with whether its signature verified.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The signature verified against the secret known when it arrived. */
  verified: boolean;
  answered: number;
}

export interface WebhookReceiver extends AsyncDisposable {
  url: string;
  received: ReceivedWebhook[];
  /** The signing secret to verify with (set once the test has it). */
  secret: string | undefined;
  /** Statuses to answer the next deliveries with, in order (then 204). */
  script: number[];
}

/** The Standard Webhooks signature check, written from the specification. */
export function verifies(
  secret: string,
  id: string,
  timestamp: string,
  body: string,
  header: string,
): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  return header.split(" ").some((part) => {
    const [version, value] = part.split(",");
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export function startWebhookReceiver(): WebhookReceiver {
  const state: WebhookReceiver = {
    url: "",
    received: [],
    secret: undefined,
    script: [],
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.text();
    const id = req.headers.get("webhook-id") ?? "";
    const timestamp = req.headers.get("webhook-timestamp") ?? "";
    const signature = req.headers.get("webhook-signature") ?? "";
    const answered = state.script.shift() ?? 204;
    state.received.push({
      id,
      timestamp,
      signature,
      body,
      verified: state.secret !== undefined &&
        verifies(state.secret, id, timestamp, body, signature),
      answered,
    });
    return new Response(null, { status: answered });
  });
  state.url = `http://127.0.0.1:${server.addr.port}/sovra-alerts`;
  return state;
}
