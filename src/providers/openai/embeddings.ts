/**
 * `POST {base_url}/embeddings` for the `openai` dialect: the client's body forwarded
 * unchanged, except `model`, which becomes the route's upstream model, and the names the
 * provider's request schema gives differently (`dimensions` → Mistral's `output_dimension`);
 * what the schema lacks was removed (and named) by the routing plan.
 */
import { z } from "zod";
import type { EmbeddingsRequest, EmbeddingsResult, UpstreamCall } from "../adapter.ts";
import type { Usage } from "../../canonical/usage.ts";
import {
  authHeaders,
  endpointUrl,
  type OpenAiDeps,
  parseJson,
  readBodyText,
  sendUpstream,
  unreadableAnswer,
} from "./http.ts";
import { endpointSchema, shapeBody } from "./conform_request.ts";

const count = z.number().int().nonnegative().nullish().catch(undefined);

/** Tolerant reader of the upstream answer: only the usage is looked at. */
const EmbeddingsAnswer = z.looseObject({
  usage: z
    .looseObject({ prompt_tokens: count, total_tokens: count, completion_tokens: count })
    .nullish()
    .catch(undefined),
});

export async function openaiEmbeddings(
  request: EmbeddingsRequest,
  call: UpstreamCall,
  deps: OpenAiDeps,
): Promise<EmbeddingsResult> {
  // `request.body` never holds the client's `model` (see parseEmbeddingsRequest).
  const body = shapeBody(
    { ...request.body, model: call.route.route.upstream_model },
    endpointSchema(call.route, "embeddings"),
  );
  const response = await sendUpstream(call, deps, endpointUrl(call, "/embeddings"), {
    headers: {
      ...authHeaders(call, deps),
      "content-type": "application/json",
      accept: "application/json",
    },
    body: JSON.stringify(body),
  });
  const json = parseJson(await readBodyText(response, call.signal));
  const answer = EmbeddingsAnswer.safeParse(json);
  if (!answer.success) throw unreadableAnswer(answer.error);
  // The client gets the provider's own body; the parsed copy is only read for usage.
  return { body: json as Record<string, unknown>, usage: toUsage(answer.data.usage) };
}

function toUsage(
  usage: z.infer<typeof EmbeddingsAnswer>["usage"],
): Usage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const promptTokens = usage.prompt_tokens ?? undefined;
  if (promptTokens === undefined) return undefined;
  return {
    promptTokens,
    totalTokens: usage.total_tokens ?? undefined,
    completionTokens: usage.completion_tokens ?? undefined,
  };
}
