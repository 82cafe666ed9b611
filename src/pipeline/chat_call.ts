/**
 * A chat call through the model's routes, shared by `/v1/chat/completions` and
 * `/v1/responses`: route checks, parameter filtering, the fallback loop, the idle watchdog
 * for streams, live route metrics, and settling (billing + metadata) at the end.
 */
import type { ChatRequest, ChatResult, ChatStreamEvent } from "../canonical/chat.ts";
import type { PassthroughItem } from "../canonical/forwarded_chunk.ts";
import type { Model } from "../catalog/schema.ts";
import type { ProviderAdapter } from "../providers/adapter.ts";
import type { EventBatches } from "../providers/event_batches.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { loggableReason, UpstreamFailure } from "../providers/upstream_failure.ts";
import { RouteMetrics } from "../routing/route_metrics.ts";
import type { Caller, RouteCandidate, RoutePlan, RouterDecision } from "../routing/route_plan.ts";
import { type RouteSuccess, tryRoutes } from "../routing/try_routes.ts";
import { IdleWatchdog } from "./idle_watchdog.ts";
import { StreamAccounting } from "../canonical/stream_accounting.ts";
import { billableUsage, reportedUsage, resultText } from "./billable_usage.ts";
import { settleFailure, settleInAdmission, settleRequest } from "./settle_request.ts";
import type { PipelineDeps } from "./pipeline_deps.ts";
import { admitUpstream, holdUpstream } from "./admission_estimate.ts";
import { answerAfterCommit, settlesInAdmission, untilAdmitted } from "./admission_wait.ts";
import { planRequest, runDeferred } from "./plan_request.ts";
import { prefetchRouterPins } from "./chat_target.ts";
import { type StreamCheckpoints, streamCheckpoints } from "./stream_checkpoint.ts";
import type { UpstreamAdmission } from "../limits/admission.ts";
import { collectToolCallIds } from "../smart_router/stream_tool_calls.ts";
import { type CacheUse, cacheUseOf } from "../routing/cache_affinity.ts";

export interface ChatCallContext {
  deps: PipelineDeps;
  /**
   * The catalog model the client named; for `router/<id>` the router's source picks the
   * models, and this is only the pool's first (for request decoding).
   */
  model: Model;
  /** The model string as the client sent it, when it is not `model.id` (`router/<id>`). */
  requestedModel?: string;
  caller: Caller;
  endpoint: "chat" | "responses";
  /** Aborts when the client goes away. */
  clientSignal: AbortSignal;
}

export interface Served {
  route: ResolvedRoute;
  fallbacks: number;
  dropped: string[];
  /** Values changed for the route that served (reasoning effort), for `x-sovra-adjusted-params`. */
  adjusted?: string[];
  /** The router's decision, when a routing policy chose the models. */
  routing?: RouterDecision;
}

function adapterFor(deps: PipelineDeps, route: ResolvedRoute): ProviderAdapter {
  const adapter = deps.adapters[route.dialect];
  if (!adapter) {
    throw new UpstreamFailure("unavailable", `No adapter for the '${route.dialect}' dialect.`);
  }
  return adapter;
}

/**
 * An upstream controller that the client's leaving aborts, and `unlink` to drop that listener
 * once the stream is over: the client's signal outlives the stream (and Deno keeps a request's
 * objects past the young generation's next collections), so the listener kept the finished
 * stream's upstream, and what hung from it, reachable (docs/performance.md, "Finished streams collected young").
 */
function linkedController(signal: AbortSignal): { controller: AbortController; unlink(): void } {
  const controller = new AbortController();
  if (signal.aborted) {
    controller.abort(signal.reason);
    return { controller, unlink() {} };
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return { controller, unlink: () => signal.removeEventListener("abort", onAbort) };
}

/**
 * The stream's generated text for the estimate, and its release once the settle has it:
 * closures made here hold the accounting only, not the whole scope of `openChatStream`.
 */
function estimateText(accounting: StreamAccounting): () => string {
  return () => accounting.generatedText();
}

function releaseWhenSettled(consumed: Promise<unknown>, accounting: StreamAccounting): void {
  const release = () => accounting.release();
  consumed.then(release, release);
}

/** One line per failed upstream attempt: ids and the neutral reason, never a payload. */
export function logAttemptFailure(
  deps: Pick<PipelineDeps, "log">,
  requestId: string,
  route: ResolvedRoute,
  failure: UpstreamFailure,
): void {
  deps.log.warn("upstream attempt failed", {
    request_id: requestId,
    provider: route.providerId,
    upstream_model: route.route.upstream_model,
    kind: failure.kind,
    status: failure.status,
    reason: loggableReason(failure),
  });
}

/** The telemetry hook for `tryRoutes`: each attempt's duration, outcome and span. */
export function observeAttempts(deps: PipelineDeps, caller: Caller) {
  const telemetry = deps.telemetry;
  if (!telemetry) return undefined;
  return <T>(route: ResolvedRoute, index: number, run: () => Promise<T>): Promise<T> =>
    telemetry.attempt(caller.trace, route, index, run);
}

/** The last route that failed, for the metadata of a request that found no route. */
interface LastFailure {
  served: Served | undefined;
}

function routeOptions(
  ctx: ChatCallContext,
  last: LastFailure,
  routing: RouterDecision | undefined,
) {
  return {
    signal: ctx.clientSignal,
    metrics: ctx.deps.metrics,
    observe: observeAttempts(ctx.deps, ctx.caller),
    onFailure: (route: ResolvedRoute, attempts: number, failure: UpstreamFailure) => {
      last.served = {
        route,
        fallbacks: attempts - 1,
        dropped: [],
        ...(routing ? { routing } : {}),
      };
      logAttemptFailure(ctx.deps, ctx.caller.requestId, route, failure);
    },
  };
}

/**
 * The router pins a `router/<id>` request could use that other instances wrote, read before
 * the (synchronous) plan; undefined, with no store read, for most requests.
 */
function pinsRead(ctx: ChatCallContext, request: ChatRequest): Promise<void> | undefined {
  return prefetchRouterPins(ctx.deps, ctx.caller.org, ctx.requestedModel, request);
}

/** The routing plan of this chat request (refusals and policies decided before any call). */
export function planChat(ctx: ChatCallContext, request: ChatRequest): RoutePlan<ChatRequest> {
  return planRequest(ctx.deps, {
    endpoint: ctx.endpoint,
    request,
    caller: ctx.caller,
    catalog: ctx.deps.catalog.current,
    model: ctx.model,
  });
}

/**
 * The checks planning deferred (a borderline guardrail verdict's remote classifier), after
 * planning and before admission and any upstream call; they throw the refusal. Most requests
 * have none. The credit hold comes first (the 402), so a request refused for credit never
 * reaches the classifier; admission keeps that hold (docs/guardrail_remote.md, "Order").
 */
function deferredChecks(
  ctx: ChatCallContext,
  request: ChatRequest,
  plan: RoutePlan<ChatRequest>,
): Promise<void> | undefined {
  if (!plan.deferred) return undefined;
  holdUpstream(ctx.caller, { endpoint: ctx.endpoint, request }, plan.candidates);
  return runDeferred(ctx.deps, plan.deferred, ctx.clientSignal);
}

/** A whole (non-streamed) answer, settled before it is returned. */
export async function completeChat(
  ctx: ChatCallContext,
  request: ChatRequest,
): Promise<{ result: ChatResult; served: Served }> {
  const pins = pinsRead(ctx, request);
  if (pins) await pins;
  const plan = planChat(ctx, request);
  const deferred = deferredChecks(ctx, request, plan);
  if (deferred) await deferred;
  admitChat(ctx, request, plan);
  const started = performance.now();
  const last: LastFailure = { served: undefined };
  let success: RouteSuccess<ChatResult>;
  try {
    success = await tryRoutes(plan.candidates, (candidate) => {
      const { route } = candidate;
      return adapterFor(ctx.deps, route).chat(candidate.request, {
        route,
        signal: ctx.clientSignal,
      });
    }, routeOptions(ctx, last, plan.routing));
  } catch (error) {
    settleFailure(
      ctx.deps,
      { ...settlementOf(ctx, request, last.served), stream: request.stream },
      error,
      ctx.clientSignal,
    );
    throw error;
  }
  ctx.deps.metrics.recordSuccess(
    RouteMetrics.key(success.route.providerId, success.route.route.upstream_model),
    {
      latencyMs: performance.now() - started,
      completionTokens: success.value.usage?.completionTokens,
    },
  );
  const result = success.value;
  if (ctx.deps.routing.cacheAffinity) {
    noteCacheHolder(ctx.deps, ctx.caller.org, cacheUseOf(request, ctx.caller.keyId), success.route);
  }
  plan.routing?.onServed?.(
    success.route.model,
    [result, ...(result.moreChoices ?? [])].flatMap((c) => c.toolCalls?.map((t) => t.id) ?? []),
  );
  const served: Served = {
    route: success.route,
    fallbacks: success.fallbacks,
    dropped: success.dropped,
    ...(success.adjusted ? { adjusted: success.adjusted } : {}),
    ...(plan.routing ? { routing: plan.routing } : {}),
  };
  // No answer before the admission record, or the settle in its place, is durable (a crash
  // from here on is still billed), and no wait without a bound: a hung commit is the store's
  // 500, settled as such at cost 0.
  const settlement = { ...settlementOf(ctx, request, served), stream: false };
  const consumed = reportedUsage(result.usage) ??
    billableUsage(request.messages, result.usage, () => resultText(result));
  const finish = { reason: result.finishReason, raw: result.rawFinishReason };
  // The admission's commit not sent yet: the settle takes the record's place in it.
  const inCommit = consumed instanceof Promise || !settlesInAdmission(ctx.deps.config)
    ? undefined
    : settleInAdmission(ctx.deps, { ...settlement, status: 200, consumed, finish });
  if (inCommit) {
    await answerAfterCommit(ctx.deps, inCommit, settlement, ctx.clientSignal);
    return { result, served };
  }
  try {
    await untilAdmitted(ctx.caller.admission, ctx.deps.config.streamIdleMs, ctx.clientSignal);
  } catch (error) {
    settleFailure(ctx.deps, settlement, error, ctx.clientSignal);
    throw error;
  }
  settleRequest(ctx.deps, { ...settlement, status: 200, consumed, finish });
  return { result, served };
}

export interface OpenChatStream<E extends PassthroughItem = ChatStreamEvent> {
  served: Served;
  /**
   * The next batch of canonical events (one upstream read); waiting on the upstream is
   * guarded by the idle watchdog.
   */
  read(): Promise<ReadableStreamReadResult<E[]>>;
  /** Client left: abort the upstream. */
  cancel(reason?: unknown): void;
  accounting: StreamAccounting;
  /** Call once when the stream ended (any way); settles billing and metadata. */
  finish(outcome: "completed" | "failed" | "cancelled"): void;
}

/**
 * A read that failed because we aborted the upstream (idle cut) fails with the abort's
 * UpstreamFailure, not the fetch's generic abort error.
 */
function abortReason(error: unknown, upstream: AbortController): unknown {
  const reason = upstream.signal.reason;
  return !(error instanceof UpstreamFailure) && reason instanceof UpstreamFailure ? reason : error;
}

export interface OpenChatStreamOptions {
  /**
   * Asks for the stream pass-through where the route's adapter has one (a chat client in the
   * route's dialect that needs nothing changed but the chunks' head; the caller decides that).
   * A routing policy's tool-call pins read the ids from the forwarded chunks that carry calls.
   */
  passthrough?: boolean;
}

/**
 * Waits for the admission commit as time spent on the upstream: a commit that hangs past the
 * stream idle limit fails the stream (the watchdog aborts the upstream), and so does the
 * client leaving, instead of holding the stream open until the store answers.
 */
function untilDurable(
  write: Promise<void>,
  watchdog: IdleWatchdog,
  upstream: AbortController,
): Promise<void> {
  const { signal } = upstream;
  if (signal.aborted) return Promise.reject(signal.reason);
  return watchdog.guard(
    new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      // `durable()` never rejects (a store failure is logged and the request goes on).
      void write.then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    }),
  );
}

/** Opens a stream; resolves after the first event, so a failure before it can fall back. */
export function openChatStream(
  ctx: ChatCallContext,
  request: ChatRequest,
): Promise<OpenChatStream>;
export function openChatStream(
  ctx: ChatCallContext,
  request: ChatRequest,
  options: OpenChatStreamOptions,
): Promise<OpenChatStream<PassthroughItem>>;
export async function openChatStream(
  ctx: ChatCallContext,
  request: ChatRequest,
  options: OpenChatStreamOptions = {},
): Promise<OpenChatStream<PassthroughItem>> {
  const pins = pinsRead(ctx, request);
  if (pins) await pins;
  const plan = planChat(ctx, request);
  const deferred = deferredChecks(ctx, request, plan);
  if (deferred) await deferred;
  admitChat(ctx, request, plan);
  const started = performance.now();
  const commitWait: CommitWait = { waiting: false, stalled: false };
  const success = await firstStreamingRoute(ctx, request, plan, options, commitWait);
  return new ChatStream(ctx, request, plan.routing, success, started, commitWait);
}

/** Content waiting for the admission commit: an idle stall then is the store's, not the provider's. */
interface CommitWait {
  waiting: boolean;
  stalled: boolean;
}

/** A route whose stream opened: its reader, first batch, watchdog and upstream controller. */
interface OpenedRoute {
  reader: EventBatches<PassthroughItem>;
  first: ReadableStreamReadResult<PassthroughItem[]>;
  watchdog: IdleWatchdog;
  upstream: AbortController;
  unlink: () => void;
}

/** The plan's routes in order until one streams its first batch; settles when none does. */
async function firstStreamingRoute(
  ctx: ChatCallContext,
  request: ChatRequest,
  plan: RoutePlan<ChatRequest>,
  options: OpenChatStreamOptions,
  commitWait: CommitWait,
): Promise<RouteSuccess<OpenedRoute>> {
  const passthrough = options.passthrough === true;
  const last: LastFailure = { served: undefined };
  try {
    return await tryRoutes(
      plan.candidates,
      (candidate) => openRoute(ctx, candidate, passthrough, commitWait),
      routeOptions(ctx, last, plan.routing),
    );
  } catch (error) {
    settleFailure(
      ctx.deps,
      { ...settlementOf(ctx, request, last.served), stream: request.stream },
      error,
      ctx.clientSignal,
    );
    throw error;
  }
}

/**
 * One attempt: an upstream the client's leaving aborts, the idle watchdog, the adapter's stream
 * (or pass-through) and its first read; on failure everything is released and the failure
 * (the watchdog's abort reason when it cut the upstream) thrown for the fallback loop.
 */
async function openRoute(
  ctx: ChatCallContext,
  candidate: RouteCandidate<ChatRequest>,
  passthrough: boolean,
  commitWait: CommitWait,
): Promise<OpenedRoute> {
  const { route } = candidate;
  const { controller: upstream, unlink } = linkedController(ctx.clientSignal);
  const watchdog = new IdleWatchdog(ctx.deps.config.streamIdleMs, () => {
    commitWait.stalled = commitWait.waiting;
    upstream.abort(
      new UpstreamFailure(
        "unavailable",
        commitWait.waiting
          ? "The admission commit did not complete in time."
          : "The provider went silent.",
      ),
    );
  });
  try {
    const adapter = adapterFor(ctx.deps, route);
    const call = { route, signal: upstream.signal };
    const reader: EventBatches<PassthroughItem> = await watchdog.guard(
      passthrough && adapter.chatPassthrough
        ? adapter.chatPassthrough(candidate.request, call)
        : adapter.chatStream(candidate.request, call),
    );
    const first = await watchdog.guard(reader.read());
    return { reader, first, watchdog, upstream, unlink };
  } catch (error) {
    watchdog.stop();
    upstream.abort();
    unlink();
    throw abortReason(error, upstream);
  }
}

/**
 * An open stream: its reads (the first batch, then the upstream's under the watchdog, content
 * held until the admission record is durable), its accounting, and its one finish (metrics,
 * router pins, settle). It keeps of its request only the messages (the usage estimate of a
 * stream that ends without usage) and the settlement fields: not the plan, its candidates'
 * copies or the request's tools and parameters (memory per open stream).
 */
class ChatStream implements OpenChatStream<PassthroughItem> {
  readonly served: Served;
  readonly accounting = new StreamAccounting();
  readonly #deps: PipelineDeps;
  readonly #clientSignal: AbortSignal;
  readonly #reader: EventBatches<PassthroughItem>;
  readonly #watchdog: IdleWatchdog;
  readonly #upstream: AbortController;
  readonly #unlink: () => void;
  readonly #commitWait: CommitWait;
  readonly #admission: UpstreamAdmission | undefined;
  /**
   * No answer content before the admission record is durable (a crash from then on is still
   * billed), but the status, headers and the role chunk of an upstream that started without a
   * token (an empty first batch) go out at once: the commit overlaps the time to first token.
   */
  #admissionWrite: Promise<void> | undefined;
  #pendingFirst: ReadableStreamReadResult<PassthroughItem[]> | undefined;
  readonly #routing: RouterDecision | undefined;
  /** Tool-call ids the answer made (the router pins a tool loop to its model). */
  readonly #toolCallIds: string[] = [];
  readonly #messages: ChatRequest["messages"];
  readonly #settlement: ReturnType<typeof settlementOf>;
  /** The prompt cache this request uses, when the routing follows cache holders. */
  readonly #cacheUse: CacheUse | undefined;
  readonly #org: string;
  readonly #checkpoints: StreamCheckpoints | undefined;
  readonly #untrack: (() => void) | undefined;
  readonly #metricsKey: string;
  readonly #started: number;
  readonly #ttft: number;
  #finished = false;

  constructor(
    ctx: ChatCallContext,
    request: ChatRequest,
    routing: RouterDecision | undefined,
    success: RouteSuccess<OpenedRoute>,
    started: number,
    commitWait: CommitWait,
  ) {
    const { deps } = ctx;
    const route = success.route;
    this.#deps = deps;
    this.#clientSignal = ctx.clientSignal;
    // Not the opened route's object: it holds the first batch, which goes once it is read.
    const { reader, watchdog, upstream, unlink } = success.value;
    this.#reader = reader;
    this.#watchdog = watchdog;
    this.#upstream = upstream;
    this.#unlink = unlink;
    this.#commitWait = commitWait;
    this.#admission = ctx.caller.admission;
    this.#admissionWrite = this.#admission?.durable();
    this.#pendingFirst = success.value.first;
    this.#started = started;
    this.#ttft = performance.now() - started;
    this.#metricsKey = RouteMetrics.key(route.providerId, route.route.upstream_model);
    this.served = {
      route,
      fallbacks: success.fallbacks,
      dropped: success.dropped,
      ...(success.adjusted ? { adjusted: success.adjusted } : {}),
      ...(routing ? { routing } : {}),
    };
    this.#routing = routing;
    this.#messages = request.messages;
    this.#settlement = settlementOf(ctx, request, this.served);
    this.#cacheUse = deps.routing.cacheAffinity ? cacheUseOf(request, ctx.caller.keyId) : undefined;
    this.#org = ctx.caller.org;
    // A long stream's completion so far rides the group commits (its admission record).
    this.#checkpoints = streamCheckpoints(
      deps.config.streamCheckpointMs,
      this.#admission,
      { route, fallbacks: success.fallbacks, routed: routing !== undefined },
      estimateText(this.accounting),
    );
    deps.telemetry?.streamOpened(ctx.caller.trace);
    this.#untrack = deps.lifecycle?.trackStream(() =>
      upstream.abort(new UpstreamFailure("unavailable", "The gateway is shutting down."))
    );
  }

  /**
   * The first batch, then the upstream's under the watchdog, in this one `async` frame (a
   * frame and a promise per chunk less than a helper for the upstream read).
   */
  async read(): Promise<ReadableStreamReadResult<PassthroughItem[]>> {
    let result = this.#pendingFirst;
    this.#pendingFirst = undefined;
    if (result === undefined) {
      const watchdog = this.#watchdog;
      watchdog.begin();
      try {
        result = await this.#reader.read();
      } catch (error) {
        await this.#failedRead();
        throw abortReason(error, this.#upstream);
      } finally {
        watchdog.end();
      }
    }
    if (this.#admissionWrite && (result.done || result.value.length > 0)) {
      await this.#untilAdmitted();
    }
    if (!result.done) this.#observe(result.value);
    return result;
  }

  /**
   * A failure after an empty first batch is told (Responses: `response.failed`) only once the
   * admission is durable too, like content: every stream path waits alike.
   */
  async #failedRead(): Promise<void> {
    if (!this.#admissionWrite) return;
    this.#admission!.hurry();
    await untilDurable(this.#admissionWrite, this.#watchdog, this.#upstream).catch(() => {});
  }

  /** A deferred admission (a route that usually streams later) commits now; content waits. */
  async #untilAdmitted(): Promise<void> {
    const upstream = this.#upstream;
    this.#admission!.hurry();
    this.#commitWait.waiting = true;
    try {
      await untilDurable(this.#admissionWrite!, this.#watchdog, upstream);
    } catch (error) {
      throw abortReason(error, upstream);
    } finally {
      this.#commitWait.waiting = false;
    }
    this.#admissionWrite = undefined;
  }

  #observe(items: readonly PassthroughItem[]): void {
    for (const item of items) {
      this.accounting.observe(item);
      if (this.#routing) collectToolCallIds(item, this.#toolCallIds);
    }
    this.#checkpoints?.observed();
  }

  cancel(reason?: unknown): void {
    this.#upstream.abort(reason);
    this.#reader.cancel(reason).catch(() => {});
  }

  finish(reported: "completed" | "failed" | "cancelled"): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#checkpoints?.stop();
    this.#deps.telemetry?.streamClosed();
    this.#untrack?.();
    // A read that failed because the client left is a cancel, not a provider failure.
    const outcome = reported === "failed" && this.#clientSignal.aborted ? "cancelled" : reported;
    this.#watchdog.stop();
    this.#unlink();
    this.#recordOutcome(outcome);
    this.#settle();
  }

  /** Live route metrics and, after a success, the router's pins. */
  #recordOutcome(outcome: "completed" | "failed" | "cancelled"): void {
    if (outcome === "completed") {
      noteCacheHolder(this.#deps, this.#org, this.#cacheUse, this.served.route);
      this.#routing?.onServed?.(this.served.route.model, this.#toolCallIds);
      this.#deps.metrics.recordSuccess(this.#metricsKey, {
        latencyMs: performance.now() - this.#started,
        ttftMs: this.#ttft,
        completionTokens: this.accounting.usage?.completionTokens,
      });
    } else if (outcome === "failed" && !this.#commitWait.stalled) {
      this.#deps.metrics.recordFailure(this.#metricsKey);
    }
  }

  #settle(): void {
    const { accounting } = this;
    const consumed = billableUsage(this.#messages, accounting.usage, estimateText(accounting));
    settleRequest(this.#deps, {
      ...this.#settlement,
      status: 200,
      stream: true,
      consumed,
      finish: { reason: accounting.finishReason, raw: accounting.rawFinishReason },
    });
    // The estimate (if any) has read the text once `consumed` settles; the text goes then.
    releaseWhenSettled(consumed, accounting);
  }
}

/** A caching request served: its session's prompt cache now lives on this route. */
function noteCacheHolder(
  deps: PipelineDeps,
  org: string,
  use: CacheUse | undefined,
  route: ResolvedRoute,
) {
  if (use === undefined) return;
  deps.routing.cacheAffinity?.served(org, use, {
    model: route.model.id,
    provider: route.providerId,
  });
}

/** Holds the request's credit and writes its admission record (admission_estimate.ts). */
function admitChat(ctx: ChatCallContext, request: ChatRequest, plan: RoutePlan<ChatRequest>) {
  admitUpstream(
    ctx.caller,
    { endpoint: ctx.endpoint, request },
    plan.candidates,
    {
      requestedModel: ctx.requestedModel ?? ctx.model.id,
      user: request.user,
      stream: request.stream,
      routingPolicy: plan.routing?.policy,
    },
    undefined,
    expectedAnswerMs(ctx.deps.metrics, plan.candidates[0]?.route, request.stream),
    !request.stream && settlesInAdmission(ctx.deps.config),
  );
}

/**
 * When the route usually answers: a stream's content waits for the first token, a whole answer
 * for all of it (live route metrics; undefined before the route's first success).
 */
function expectedAnswerMs(
  metrics: RouteMetrics,
  route: ResolvedRoute | undefined,
  stream: boolean,
): number | undefined {
  if (!route) return undefined;
  const live = metrics.peek(RouteMetrics.key(route.providerId, route.route.upstream_model));
  return stream ? live?.ttftMs : live?.latencyMs;
}

/** The settlement fields of this chat request; the caller adds status and consumption. */
function settlementOf(ctx: ChatCallContext, request: ChatRequest, served: Served | undefined) {
  return {
    caller: ctx.caller,
    endpoint: ctx.endpoint,
    requestedModel: ctx.requestedModel ?? ctx.model.id,
    user: request.user,
    served,
  };
}
