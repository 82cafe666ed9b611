/**
 * The moderation wire format the guardrail's remote layer speaks: `POST {base_url}/moderations`
 * with `{"model", "input": [text]}`, answered by `{"id", "model", "results": [{"categories":
 * {name: bool}, "category_scores": {name: 0..1}}]}` — Mistral's `/v1/moderations` (categories of
 * `mistral-moderation-2603`: sexual, hate_and_discrimination, violence_and_threats, dangerous,
 * criminal, selfharm, health, financial, law, pii, jailbreaking) and OpenAI's shape alike (OpenAI
 * adds `flagged`, which is not read). Sources: docs.mistral.ai/studio/safety-moderation, the
 * `mistralai/client-python` models `ClassificationRequest`, `ModerationResponse`,
 * `ModerationObject`. Pure: no network here (the caller sends it over the upstream transport).
 */
import { z } from "zod";

export const MODERATIONS_PATH = "/moderations";

export function moderationRequestBody(upstreamModel: string, text: string): string {
  return JSON.stringify({ model: upstreamModel, input: [text] });
}

const ModerationAnswer = z.looseObject({
  results: z.array(z.looseObject({
    categories: z.record(z.string(), z.boolean()).optional(),
    category_scores: z.record(z.string(), z.number()).optional(),
  })).min(1),
});

/** What the answer says about prompt injection. */
export interface RemoteJudgement {
  /** One of the injection categories is flagged (the classifier's own threshold). */
  injection: boolean;
  /** The highest score among the injection categories (0 when none is reported). */
  score: number;
  /** The injection category that decided (flagged, else the highest-scoring), or null. */
  category: string | null;
}

/**
 * Reads a 2xx answer's JSON; throws an `Error` when it is not the moderation shape or reports
 * none of `injectionCategories`.
 */
export function judgeAnswer(
  json: unknown,
  injectionCategories: readonly string[],
): RemoteJudgement {
  const parsed = ModerationAnswer.safeParse(json);
  if (!parsed.success) throw new Error("The moderation answer is not in the moderation format.");
  const result = parsed.data.results[0]!;
  // An answer without any injection category says nothing about injection (a classifier with
  // other categories, or one that dropped it): an error, so `on_error` decides, never a pass.
  if (
    !injectionCategories.some((name) =>
      result.categories?.[name] !== undefined || result.category_scores?.[name] !== undefined
    )
  ) {
    throw new Error("The moderation answer reports none of the injection categories.");
  }
  let injection = false;
  let score = 0;
  let category: string | null = null;
  for (const name of injectionCategories) {
    const flagged = result.categories?.[name] === true;
    const value = result.category_scores?.[name] ?? 0;
    if (flagged && !injection) {
      injection = true;
      category = name;
    }
    if (value > score) {
      score = value;
      if (!injection) category = name;
    }
  }
  return { injection, score: Math.round(score * 1000) / 1000, category };
}
