/** One labelled text for the guardrail's training or evaluation. */
export interface Row {
  text: string;
  /** 1 injection, 0 benign */
  label: 0 | 1;
  /** en, de, fr, es, it, nl, pl, code */
  language: string;
  channel: "user" | "tool";
  /** attack, hard (hard negative), prose, code */
  kind: string;
  source: string;
}

/**
 * The fixed split: a row belongs to the held-out evaluation part when a hash of its text says
 * so (one in four), whatever the source; training and threshold fitting never see those rows.
 */
export function isHeldOut(text: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return ((h >>> 0) % 4) === 0;
}
