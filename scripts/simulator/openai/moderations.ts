/**
 * `POST /v1/moderations` as Mistral answers it (`mistral-moderation-2603`): `{"model", "input":
 * string | string[]}` → `{"id", "model", "results": [{"categories", "category_scores"}]}`, one
 * result per input, over the eleven 2603 categories (docs.mistral.ai/studio/safety-moderation;
 * `mistralai/client-python` `ModerationResponse`/`ModerationObject`). Scores are fixed and low,
 * except `jailbreaking`, set by the model-name token `jailbreak-<percent>`; a category is flagged
 * at 0.5. Fault controls as everywhere: `slow-<ms>` (before answering), `fail-<status>`,
 * `silent`.
 */

import { z } from "zod";
import { behaviourOf } from "./behaviour.ts";
import type { RequestContext } from "./context.ts";
import { interruptedResponse, invalidBody, invalidRequest, jsonResponse } from "./responses.ts";
import { sleep } from "./timing.ts";

export const MODERATION_CATEGORIES = [
  "sexual",
  "hate_and_discrimination",
  "violence_and_threats",
  "dangerous",
  "criminal",
  "selfharm",
  "health",
  "financial",
  "law",
  "pii",
  "jailbreaking",
] as const;

const MAX_INPUTS = 32;
const FLAG_AT = 0.5;
const BASE_SCORE = 0.0004;

const ModerationRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string())]),
});

export async function handleModerations(body: unknown, ctx: RequestContext): Promise<Response> {
  const parsed = ModerationRequest.safeParse(body);
  if (!parsed.success) return invalidBody(parsed.error.issues, ctx.requestId);
  const { model, input } = parsed.data;
  const inputs = typeof input === "string" ? [input] : input;
  if (inputs.length === 0 || inputs.length > MAX_INPUTS) {
    return invalidRequest(
      `'input' must hold between 1 and ${MAX_INPUTS} texts.`,
      ctx.requestId,
      "input",
    );
  }
  const behaviour = behaviourOf(model);
  if (behaviour.slowMs > 0) await sleep(behaviour.slowMs, ctx.signal());
  const interrupted = await interruptedResponse(behaviour, ctx.signal, ctx.requestId);
  if (interrupted !== undefined) return interrupted;
  const jailbreaking = (behaviour.jailbreakPercent ?? 0.05) / 100;
  const results = inputs.map(() => {
    const categories: Record<string, boolean> = {};
    const scores: Record<string, number> = {};
    for (const name of MODERATION_CATEGORIES) {
      const score = name === "jailbreaking" ? jailbreaking : BASE_SCORE;
      scores[name] = score;
      categories[name] = score >= FLAG_AT;
    }
    return { categories, category_scores: scores };
  });
  return jsonResponse({ id: `mod-${ctx.requestId.slice(4)}`, model, results }, ctx.requestId);
}
