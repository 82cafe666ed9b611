/**
 * The `encrypted_content` of the gateway's reasoning items: the turn's canonical reasoning
 * details, packed into one opaque string. The gateway stores nothing, so what a tool loop needs
 * back travels with the client; clients that keep nothing but `encrypted_content` (OpenAI's
 * stateless recipe with `store: false`, e.g. the Vercel AI SDK) replay the whole turn's
 * reasoning with it, signatures included. Replayed envelopes are validated like
 * `reasoning_details`; other strings are an upstream's own encrypted blob.
 */
import { z } from "zod";
import type { ReasoningDetail } from "../../canonical/chat.ts";
import { ReasoningDetailSchema } from "../../canonical/reasoning_detail_schema.ts";
import { refusedField } from "../../errors.ts";

const PREFIX = "sovra.rd1.";
const Details = z.array(ReasoningDetailSchema);

export function packReasoning(details: readonly ReasoningDetail[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(details));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return PREFIX + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The details inside a gateway envelope (validated; a broken envelope is a 400 naming
 * `input`), or undefined when `value` is not one.
 */
export function unpackReasoning(value: string): z.infer<typeof Details> | undefined {
  if (!value.startsWith(PREFIX)) return undefined;
  let parsed: unknown;
  try {
    const base64 = value.slice(PREFIX.length).replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(base64);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    parsed = undefined;
  }
  const result = Details.safeParse(parsed);
  if (!result.success) {
    throw refusedField(
      "input",
      "A reasoning item's 'encrypted_content' is damaged; replay it exactly as the gateway " +
        "returned it.",
    );
  }
  return result.data;
}
