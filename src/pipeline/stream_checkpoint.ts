/**
 * A long stream's progress in its admission record: every `intervalMs` of streaming, the
 * completion tokens generated so far (the text since the last checkpoint, estimated with the
 * tokenizer, added up) replace the record's estimate, riding the next paced group commit. A
 * process killed mid-stream is then billed by recovery for all it streamed but at most the
 * last interval's tokens (plus the one commit in flight), instead of its prompt alone. The real
 * settle replaces the checkpoint as it replaces any estimate.
 */
import type { UpstreamAdmission } from "../limits/admission.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { estimateTextTokens } from "../billing/estimate_tokens.ts";
import { progressRecord } from "./admission_estimate.ts";

export interface StreamCheckpoints {
  /** After each upstream read: writes a checkpoint once an interval has passed since the last. */
  observed(): void;
  /** The stream ended: no checkpoint after this (its settle follows). */
  stop(): void;
}

export function streamCheckpoints(
  intervalMs: number | undefined,
  admission: UpstreamAdmission | undefined,
  served: { route: ResolvedRoute; fallbacks: number; routed: boolean },
  generatedText: () => string,
): StreamCheckpoints | undefined {
  const base = admission?.recovery;
  if (intervalMs === undefined || !admission || !base) return undefined;
  let last = performance.now();
  let tokens = 0;
  let counted = 0;
  let busy = false;
  let stopped = false;
  return {
    observed() {
      if (busy || stopped || performance.now() - last < intervalMs) return;
      last = performance.now();
      busy = true;
      const text = generatedText();
      const fresh = text.slice(counted);
      counted = text.length;
      estimateTextTokens(fresh).then((n) => {
        tokens += n;
        if (!stopped) admission.checkpoint(progressRecord(base, served, tokens));
      }, () => {
        // An estimate that fails leaves the earlier checkpoint; the settle bills the stream.
      }).finally(() => busy = false);
    },
    stop() {
      stopped = true;
    },
  };
}
