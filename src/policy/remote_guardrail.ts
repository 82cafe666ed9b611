/**
 * The guardrail's optional remote layer: a borderline local verdict — the local scan
 * said `flag`: a model score between the manifest's `flag_threshold` and `block_threshold`, or a
 * flagging rule the model did not confirm — is put to the organization's remote classifier (a
 * catalog `moderation` model) before any upstream call. Never a `pass` or a `block`: those the
 * local scan decides alone, so most requests never leave the process for this.
 *
 * - The text sent is the borderline unit's text (its head and tail past `MAX_REMOTE_CHARS`),
 *   over the project's one upstream transport, to the first route of the model that the
 *   organization's rules about where data may go allow; it is never stored or logged.
 * - The classifier can only make the verdict stronger: an injection category flagged → block
 *   mode refuses with 400 `prompt_injection_detected` (the remote layer decided), flag mode
 *   serves and notes `would_block`; either way `x-sovra-guardrail` ends `; layer=remote`.
 *   Otherwise the local flag stands.
 * - No answer within `timeout_ms`, or an error: `on_error: open` keeps the local verdict;
 *   `closed` refuses with 503 `guardrail_unavailable` (block mode; flag mode never refuses).
 * - The request's guardrail note gets `remote` (model, provider, verdict, score, category,
 *   latency) and `layer`; the header `x-sovra-guardrail-remote` says what the remote layer did.
 * - Not billed: the check is part of the guardrail (docs/guardrail_remote.md).
 */
import { GatewayError } from "../errors.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { GuardrailVerdict, ScanUnit } from "../guardrail/scanner.ts";
import {
  judgeAnswer,
  moderationRequestBody,
  MODERATIONS_PATH,
} from "../guardrail/remote/moderation_wire.ts";
import type { GuardrailRemote } from "../state/policy_store.ts";
import type { GuardrailRemoteMetadata } from "../state/records.ts";
import type { EffectivePolicy } from "./effective_policy.ts";
import type { GuardrailNote, RequestNotes } from "./request_notes.ts";
import { remoteRouteRefusal } from "./guardrail_remote_setting.ts";

/** At most this many characters of the unit are sent (its head and tail beyond it). */
export const MAX_REMOTE_CHARS = 16_000;

/** How the remote layer reaches the upstream (the composition root's transport and secrets). */
export interface RemoteTransport {
  /** POSTs over the upstream transport: a 2xx response, or throws (an abort: the signal's reason). */
  post(request: {
    url: string;
    headers: Record<string, string>;
    body: string;
    signal: AbortSignal;
  }): Promise<Response>;
  /** The value of a credential variable (a provider's `api_key_env`). */
  secret(name: string): string | undefined;
}

export interface Escalation {
  setting: GuardrailRemote;
  mode: "flag" | "block";
  verdict: GuardrailVerdict;
  units: readonly ScanUnit[];
  note: GuardrailNote;
  notes: RequestNotes;
  catalog: Catalog;
  policy: EffectivePolicy;
  transport: RemoteTransport;
}

/** Whether a local verdict is borderline (the only ones the remote layer is asked about). */
export function isBorderline(verdict: GuardrailVerdict): boolean {
  return verdict.action === "flag";
}

/** Asks the remote classifier; updates the note; throws the refusal when the request is refused. */
export async function escalate(e: Escalation, clientSignal: AbortSignal): Promise<void> {
  const started = performance.now();
  const model = e.catalog.moderationModel(e.setting.model);
  const route = model && e.catalog.routesOf(model).find((r) => !remoteRouteRefusal(r, e.policy));
  let answer: Pick<GuardrailRemoteMetadata, "verdict" | "score" | "category">;
  if (!model || !route) {
    answer = { verdict: "error", score: null, category: null };
  } else {
    const timeout = AbortSignal.timeout(e.setting.timeout_ms);
    const signal = AbortSignal.any([clientSignal, timeout]);
    try {
      const name = route.provider.api_key_env;
      const key = name === undefined ? undefined : e.transport.secret(name);
      const response = await e.transport.post({
        url: route.provider.base_url + MODERATIONS_PATH,
        headers: {
          "content-type": "application/json",
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
        body: moderationRequestBody(route.route.upstream_model, textOf(e)),
        signal,
      });
      const judgement = judgeAnswer(await response.json(), model.moderation!.injection_categories);
      answer = {
        verdict: judgement.injection ? "block" : "pass",
        score: judgement.score,
        category: judgement.category,
      };
    } catch (error) {
      if (clientSignal.aborted) {
        // The text did reach the classifier: the note (and the 499 row the pipeline writes) says so.
        const cancelled = { verdict: "cancelled", score: null, category: null } as const;
        e.note.remote = remoteNote(e, route.providerId, cancelled, started);
        throw clientSignal.reason ?? error;
      }
      answer = { verdict: timeout.aborted ? "timeout" : "error", score: null, category: null };
    }
  }
  const remote = remoteNote(e, route?.providerId ?? null, answer, started);
  e.note.remote = remote;
  e.notes.headers["x-sovra-guardrail-remote"] = remote.verdict;
  if (remote.verdict === "block") {
    // The first header says the remote layer decided in both modes: a block, or (flag mode)
    // a flag the classifier would have blocked.
    e.note.layer = "remote";
    e.note.would_block = true;
    if (e.mode === "block") e.note.verdict = "block";
    e.notes.headers["x-sovra-guardrail"] =
      `${e.note.verdict}; rule=${e.note.rule}; at=${e.note.at}; layer=remote`;
    if (e.mode === "block") throw remoteBlock(e, remote);
  } else if (remote.verdict !== "pass" && e.setting.on_error === "closed" && e.mode === "block") {
    e.note.layer = "remote";
    e.note.verdict = "error";
    e.notes.headers["x-sovra-guardrail"] = "error";
    throw remoteUnavailable(e, remote);
  }
}

function remoteNote(
  e: Escalation,
  provider: string | null,
  answer: Pick<GuardrailRemoteMetadata, "verdict" | "score" | "category">,
  started: number,
): GuardrailRemoteMetadata {
  return {
    model: e.setting.model,
    provider,
    ...answer,
    on_error: e.setting.on_error,
    latency_ms: Math.round(performance.now() - started),
  };
}

/** The borderline unit's text, its head and tail when longer than `MAX_REMOTE_CHARS`. */
function textOf(e: Escalation): string {
  const text = e.units.find((u) => u.path === e.verdict.at)?.text ?? "";
  if (text.length <= MAX_REMOTE_CHARS) return text;
  const half = MAX_REMOTE_CHARS / 2;
  return `${text.slice(0, half)}\n${text.slice(text.length - half)}`;
}

function remoteBlock(e: Escalation, remote: GuardrailRemoteMetadata): GatewayError {
  return new GatewayError(
    400,
    "prompt_injection_detected",
    `The organization's prompt-injection guardrail blocked ${e.verdict.at} (role ${e.verdict.role}): ` +
      `the local scan found it borderline (rule ${e.verdict.rule}, score ${e.verdict.score}) and ` +
      `the remote classifier ${remote.model} judged it an injection (${remote.category} ` +
      `${remote.score}). The request was not sent upstream and was not billed.`,
    { param: e.verdict.at!, headers: { ...e.notes.headers } },
  );
}

function remoteUnavailable(e: Escalation, remote: GuardrailRemoteMetadata): GatewayError {
  const what = remote.verdict === "timeout"
    ? `did not answer within ${e.setting.timeout_ms} ms`
    : "could not be asked";
  return new GatewayError(
    503,
    "guardrail_unavailable",
    `The organization's prompt-injection guardrail found ${e.verdict.at} borderline and its ` +
      `remote classifier ${remote.model} ${what}; the policy fails closed (on_error=closed), so ` +
      "the request was not sent upstream and was not billed. Retry shortly.",
    { headers: { ...e.notes.headers, "retry-after": "1" } },
  );
}
