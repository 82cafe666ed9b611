/**
 * One text's verdict: normalise, decode embedded blobs, match the rules on every view, score
 * the model on 1 KB windows, combine.
 *
 * Combination (one calibration, in the model manifest): a rule whose action is `block` on this
 * channel blocks; the model blocks at `block_threshold`; a `flag` rule together with a model
 * score at `flag_threshold` blocks; otherwise a `flag` rule or a model score at
 * `flag_threshold` flags. Text that decodes (base64, hex, ROT13 on request, reversed on
 * request) to something a rule matches blocks: honest text has no reason to encode that.
 */
import { decodeViews } from "./decode.ts";
import { normalizeText } from "./normalize.ts";
import { logitOfBlocks, type NgramModel, sigmoid } from "./ngram_model.ts";
import { matchRules } from "./rules/index.ts";
import { textPass } from "./text_pass.ts";
import { Anchors } from "./rules/anchors.ts";

export type Channel = "user" | "tool";
export type Action = "pass" | "flag" | "block";

export interface TextVerdict {
  action: Action;
  /** 0..1: the model's probability, raised to 0.95 by a blocking rule, 0.6 by a flagging one. */
  score: number;
  /** The rule that decided (`PI-MODEL` when only the model did), absent on pass. */
  rule?: string;
  /** The model's own probability (max over windows and decoded views). */
  model: number;
}

export const MODEL_RULE = "PI-MODEL";
const MIN_MODEL_CHARS = 12;
/**
 * Reused for every text (the scan is synchronous): the text's own anchors, and those of its
 * decoded views (scanned after everything that reads the text's own).
 */
const TEXT_ANCHORS = new Anchors();
const VIEW_ANCHORS = new Anchors();

export function scanText(model: NgramModel, raw: string, channel: Channel): TextVerdict {
  const { block_threshold: blockAt, flag_threshold: flagAt } = model.manifest;
  const normalized = normalizeText(raw);
  let block: string | undefined;
  let flag: string | undefined;
  const pass = textPass(normalized.text, model.quantised, TEXT_ANCHORS);
  for (const hit of matchRules(normalized.text, channel, pass.anchors)) {
    if (hit.action === "block") block ??= hit.rule.id;
    else flag ??= hit.rule.id;
  }
  if (normalized.tags >= 8) block ??= "PI-ENC-ANY-02";
  if (normalized.zeroWidth >= 4) flag ??= "PI-ENC-ANY-03";
  if (normalized.mixedScriptWords >= 2) flag ??= "PI-ENC-ANY-04";
  // Too short to judge by n-grams (a greeting, a number): the rules alone decide.
  let probability = normalized.text.length < MIN_MODEL_CHARS
    ? 0
    : sigmoid(logitOfBlocks(model, pass.blocks, normalized.text.length));
  for (const view of decodeViews(raw, normalized.text, pass.anchors, normalized.ascii)) {
    const text = normalizeText(view.text).text;
    const viewPass = textPass(text, model.quantised, VIEW_ANCHORS);
    const hits = matchRules(text, channel, viewPass.anchors);
    if (hits.length > 0) block ??= `${hits[0]!.rule.id}/${view.encoding}`;
    if (text.length >= MIN_MODEL_CHARS) {
      probability = Math.max(
        probability,
        sigmoid(logitOfBlocks(model, viewPass.blocks, text.length)),
      );
    }
  }
  if (block === undefined && probability >= blockAt) block = MODEL_RULE;
  if (block === undefined && flag !== undefined && probability >= flagAt) block = flag;
  if (block !== undefined) {
    return { action: "block", score: Math.max(probability, 0.95), rule: block, model: probability };
  }
  if (flag === undefined && probability >= flagAt) flag = MODEL_RULE;
  if (flag !== undefined) {
    return { action: "flag", score: Math.max(probability, 0.6), rule: flag, model: probability };
  }
  return { action: "pass", score: probability, model: probability };
}
