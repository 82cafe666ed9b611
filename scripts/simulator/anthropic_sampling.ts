/**
 * Anthropic's Claude 4.5 models refuse `temperature` together with `top_p` (400 "temperature and
 * top_p cannot both be specified for this model. Please use only one."), on the Anthropic API,
 * Bedrock and Vertex alike (reported by several clients; AWS's Claude parameters page). Both
 * platform simulators answer so.
 */
export const BOTH_SAMPLING_MESSAGE =
  "temperature and top_p cannot both be specified for this model. Please use only one.";

/** Whether this upstream model id is a Claude 4.5 model (`claude-sonnet-4-5@…`, `eu.anthropic.claude-haiku-4-5-…`). */
export function refusesBothSampling(model: string): boolean {
  return /claude-(?:sonnet|haiku|opus)-4-5(?:[@-]|$)/.test(model);
}
