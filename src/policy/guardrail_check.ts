/**
 * The guardrail as a planning step: in `block` mode a request judged an injection is refused
 * with 400 `prompt_injection_detected` before any upstream call (not billed, no fallback);
 * in `flag` mode (and for block mode's soft zone) it is served and noted: a header
 * `x-sovra-guardrail` and a `guardrail` note in the request metadata. Neither carries the
 * matched text. Only chat-kind requests are scanned (embeddings, transcription and speech
 * are not fed to a chat model; audio is never scanned).
 */
import { GatewayError } from "../errors.ts";
import type { ChatRequest } from "../canonical/chat.ts";
import type { Guardrail, GuardrailVerdict } from "../guardrail/scanner.ts";
import type { EffectivePolicy } from "./effective_policy.ts";
import type { GuardrailNote, RequestNotes } from "./request_notes.ts";
import { scanUnits } from "./scan_units.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { escalate, isBorderline, type RemoteTransport } from "./remote_guardrail.ts";

export interface GuardrailInput {
  endpoint: string;
  request: unknown;
  caller: { policy?: EffectivePolicy; notes?: RequestNotes };
  /** The catalog (the remote layer's moderation model). */
  catalog?: Catalog;
}

/** The remote classifier's check of a borderline verdict: throws the refusal. */
export type RemoteCheck = (clientSignal: AbortSignal) => Promise<void>;

/**
 * `remote`: how the organization's remote classifier is reached; without it (or without the
 * policy's `guardrail_remote`) the local verdict is final. A borderline verdict with both
 * returns the remote check, for the pipeline to await before any upstream call
 * (remote_guardrail.ts); otherwise nothing is left to do.
 */
export function checkGuardrail(
  guardrail: Guardrail,
  input: GuardrailInput,
  remote?: RemoteTransport,
): RemoteCheck | undefined {
  const mode = input.caller.policy?.guardrail ?? "off";
  if (mode === "off") return undefined;
  if (input.endpoint !== "chat" && input.endpoint !== "responses") return undefined;
  const notes = input.caller.notes;
  let verdict: GuardrailVerdict;
  const units = scanUnits((input.request as ChatRequest).messages);
  try {
    verdict = guardrail.scan(units);
  } catch {
    // A scanner bug: block mode fails closed (not sent, not billed); flag mode serves and
    // records that the scan failed.
    scanFailed(mode, notes);
    return undefined;
  }
  const note: GuardrailNote = {
    mode,
    verdict: verdict.action === "block" && mode === "flag" ? "flag" : verdict.action,
    rule: verdict.rule ?? null,
    at: verdict.at ?? null,
    score: verdict.score,
    would_block: verdict.action === "block",
    coverage: verdict.coverage,
    version: verdict.version,
    layer: "local",
  };
  const headers: Record<string, string> = {};
  if (note.verdict !== "pass") {
    headers["x-sovra-guardrail"] = `${note.verdict}; rule=${note.rule}; at=${note.at}`;
  }
  if (verdict.coverage === "partial") headers["x-sovra-guardrail-coverage"] = "partial";
  if (notes) {
    notes.guardrail = note;
    Object.assign(notes.headers, headers);
  }
  if (mode === "block" && verdict.action === "block") throw blockedError(verdict, headers);
  const setting = input.caller.policy?.guardrailRemote;
  if (!setting || !remote || !notes || !input.catalog || !isBorderline(verdict)) return undefined;
  const escalation = {
    setting,
    mode,
    verdict,
    units,
    note,
    notes,
    catalog: input.catalog,
    policy: input.caller.policy!,
    transport: remote,
  };
  return (signal) => escalate(escalation, signal);
}

function scanFailed(mode: "flag" | "block", notes: RequestNotes | undefined): void {
  if (notes) {
    notes.guardrail = {
      mode,
      verdict: "error",
      rule: null,
      at: null,
      score: 0,
      would_block: false,
      coverage: "partial",
      version: "",
      layer: "local",
    };
    notes.headers["x-sovra-guardrail"] = "error";
  }
  if (mode === "block") {
    throw new GatewayError(
      503,
      "guardrail_unavailable",
      "The organization's prompt-injection guardrail could not scan the request; it was not " +
        "sent upstream and was not billed. Retry shortly.",
      { headers: { "retry-after": "1", "x-sovra-guardrail": "error" } },
    );
  }
}

function blockedError(verdict: GuardrailVerdict, headers: Record<string, string>): GatewayError {
  return new GatewayError(
    400,
    "prompt_injection_detected",
    `The organization's prompt-injection guardrail blocked ${verdict.at} (role ${verdict.role}): ` +
      `rule ${verdict.rule}, score ${verdict.score}. The request was not sent upstream and ` +
      "was not billed.",
    { param: verdict.at!, headers },
  );
}
