/** `POST /v1/embeddings`: forwarded unchanged but for `model`; billed by prompt tokens. */
import type { Context } from "hono";
import type { AppDeps } from "../../deps.ts";
import { type AppEnv, callerOf } from "../context.ts";
import { servedHeaders } from "../served_headers.ts";
import { readJsonBody } from "../body.ts";
import { noteRequested } from "../refused_request.ts";
import { respond } from "../answer.ts";
import { parseEmbeddingsRequest } from "../../api_formats/embeddings/request_schema.ts";
import { estimateEmbeddingTokens } from "../../api_formats/embeddings/estimate_embedding_tokens.ts";
import { callNonChat } from "../../pipeline/non_chat_call.ts";
import { requireModelField } from "../validation.ts";

export function embeddingsHandler(deps: AppDeps) {
  return async (c: Context<AppEnv>) => {
    const state = c.get("state");
    const read = await readJsonBody(c.req.raw, { deadlineMs: deps.config.bodyTimeoutMs });
    noteRequested(state, read);
    const raw = requireModelField(read);
    const parsed = parseEmbeddingsRequest(raw);
    const model = deps.catalog.current.requireModel(parsed.model, "embedding");
    const ctx = {
      deps,
      model,
      caller: callerOf(state),
      endpoint: "embeddings" as const,
      clientSignal: c.req.raw.signal,
      user: parsed.user,
    };
    const served = await callNonChat(
      ctx,
      parsed.upstream,
      (adapter, call) => adapter.embeddings!(parsed.upstream, call),
      // Reported: known at once, so the settle can ride the admission's commit (no tokenizer).
      (answer) => {
        const reported = answer.usage?.promptTokens;
        if (reported !== undefined) {
          return { promptTokens: reported, totalTokens: reported, estimated: false };
        }
        return estimateEmbeddingTokens(parsed.input).then((promptTokens) => ({
          promptTokens,
          totalTokens: promptTokens,
          estimated: true,
        }));
      },
    );
    const body = { ...served.value.body, model: model.id };
    return respond(c, JSON.stringify(body), {
      "content-type": "application/json",
      ...servedHeaders(state.requestId, served.route, served.dropped),
    });
  };
}
