/**
 * Embeddings, transcription and speech through the model's routes: the fallback loop (speech
 * never falls back), then one settle with what was consumed.
 */
import type { Model } from "../catalog/schema.ts";
import type { AppDeps } from "../deps.ts";
import type { RequestState } from "../http/context.ts";
import type { ProviderAdapter, ResolvedRoute, UpstreamCall } from "../providers/adapter.ts";
import { UpstreamFailure } from "../providers/upstream_failure.ts";
import { type RouteSuccess, tryRoutes } from "../routing/try_routes.ts";
import type { SettleInput } from "../billing/settle.ts";
import { GatewayError } from "../http/errors.ts";
import { logAttemptFailure } from "./chat_call.ts";

export interface NonChatContext {
  deps: AppDeps;
  model: Model;
  state: RequestState;
  endpoint: "embeddings" | "transcriptions" | "speech";
  clientSignal: AbortSignal;
  user: string | undefined;
}

type Method = "embeddings" | "transcription" | "speech";

export async function callNonChat<T>(
  ctx: NonChatContext,
  method: Method,
  run: (adapter: ProviderAdapter, call: UpstreamCall) => Promise<T>,
  options: { fallback: boolean },
): Promise<RouteSuccess<T>> {
  const all = ctx.deps.catalog.current.routesOf(ctx.model);
  const routes = options.fallback ? all : all.slice(0, 1);
  let lastTried: RouteSuccess<undefined> | undefined;
  try {
    return await tryRoutes(routes, (route: ResolvedRoute) => {
      const adapter = ctx.deps.adapters[route.dialect];
      if (!adapter || !adapter[method]) {
        throw new UpstreamFailure(
          "unavailable",
          `The '${route.dialect}' dialect has no ${method} support.`,
        );
      }
      return run(adapter, { route, signal: ctx.clientSignal });
    }, {
      signal: ctx.clientSignal,
      metrics: ctx.deps.metrics,
      onFailure: (route, attempts, failure) => {
        lastTried = { value: undefined, route, fallbacks: attempts - 1 };
        logAttemptFailure(ctx.deps, ctx.state.requestId, route, failure);
      },
    });
  } catch (error) {
    if (!(error instanceof GatewayError) || error.fromUpstream) {
      // No consumption: the cost is 0, but the row names the last provider tried.
      settleNonChat(ctx, lastTried, { status: error instanceof GatewayError ? error.status : 500 });
    }
    throw error;
  }
}

export function settleNonChat(
  ctx: NonChatContext,
  served: RouteSuccess<unknown> | undefined,
  used: Pick<SettleInput, "promptTokens" | "totalTokens" | "audioSeconds" | "characters"> & {
    status: number;
    estimated?: boolean;
  },
): void {
  const { state } = ctx;
  void ctx.deps.settler.settle({
    id: state.requestId,
    startedAt: state.startedAt,
    org: state.apiKey.org,
    keyId: state.apiKey.id,
    user: ctx.user,
    endpoint: ctx.endpoint,
    requestedModel: ctx.model.id,
    model: served ? ctx.model : undefined,
    servedModel: served?.route.route.upstream_model,
    provider: served?.route.providerId,
    status: used.status,
    stream: false,
    fallbacks: served?.fallbacks ?? 0,
    promptTokens: used.promptTokens,
    totalTokens: used.totalTokens,
    audioSeconds: used.audioSeconds,
    characters: used.characters,
    estimated: used.estimated ?? false,
  });
}
