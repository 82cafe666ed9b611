/**
 * Reasoning details as the Responses API format shows them: merging streamed fragments, and
 * splitting a turn's details into a `reasoning` output item's fields.
 */
import type { ReasoningDetail } from "../../canonical/chat.ts";

/**
 * Adds one streamed fragment to `details` (mutated). Fragments with the same `type` and a
 * defined `index` are one detail: `text`/`summary` concatenate; `signature`, `data`, `id` and
 * `format` keep the last non-empty value. Fragments without `index` stay separate entries.
 */
export function mergeReasoningDetail(details: ReasoningDetail[], fragment: ReasoningDetail): void {
  const target = fragment.index === undefined
    ? undefined
    : details.findLast((d) => d.type === fragment.type && d.index === fragment.index);
  if (target === undefined) {
    details.push({ ...fragment });
    return;
  }
  if (fragment.id) target.id = fragment.id;
  if (fragment.format) target.format = fragment.format;
  switch (target.type) {
    case "reasoning.text": {
      const f = fragment as typeof target;
      if (f.text) target.text = (target.text ?? "") + f.text;
      if (f.signature) target.signature = f.signature;
      return;
    }
    case "reasoning.summary": {
      const f = fragment as typeof target;
      target.summary += f.summary;
      return;
    }
    case "reasoning.encrypted": {
      const f = fragment as typeof target;
      if (f.data) target.data = f.data;
      return;
    }
  }
}

/** The parts of a reasoning output item derived from a turn's reasoning. */
export interface ReasoningView {
  /** Readable reasoning text (`content: [{type: "reasoning_text"}]`), if shown. */
  text: string | undefined;
  /** Summaries (`summary: [{type: "summary_text"}]`), if shown. */
  summaries: string[];
  /** The details handed back to the client for replay (also packed in `encrypted_content`). */
  details: ReasoningDetail[];
}

/**
 * Splits reasoning for display. With `exclude`, readable text and summaries are dropped and
 * only encrypted details are kept (they carry no readable reasoning but are needed to
 * continue a tool loop on some providers).
 */
export function viewReasoning(
  reasoning: string | undefined,
  details: readonly ReasoningDetail[],
  exclude: boolean,
): ReasoningView {
  const kept = exclude ? details.filter((d) => d.type === "reasoning.encrypted") : [...details];
  const summaries: string[] = [];
  let detailText = "";
  for (const d of kept) {
    switch (d.type) {
      case "reasoning.summary":
        if (d.summary !== "") summaries.push(d.summary);
        break;
      case "reasoning.text":
        detailText += d.text ?? "";
        break;
    }
  }
  const text = exclude ? undefined : reasoning || detailText || undefined;
  return { text, summaries, details: kept };
}
