/**
 * The settle of every request the pipeline sent to a provider, chat or not: the one mapping
 * from a request to its metadata row and bill. Who asked (`Caller`), which route served or was
 * last tried (its catalog model is priced), what was consumed, the status; the router's and
 * the guardrail's notes travel here for every endpoint alike. Never throws: a usage estimate
 * that fails still writes the row, without counts.
 */
import type { RequestRecord } from "../state/records.ts";
import type { AdmittedSettle, SettleInput } from "../billing/settle.ts";
import { USAGE_FIELDS, type UsageQuantities } from "../billed_quantities.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { FinishReason } from "../canonical/chat.ts";
import { GatewayError } from "../errors.ts";
import type { Caller, RouterDecision } from "../routing/route_plan.ts";
import type { PipelineDeps } from "./pipeline_deps.ts";

/** The route that served, or the last one tried when none did. */
export interface SettledRoute {
  route: ResolvedRoute;
  fallbacks: number;
  /** The router's decision, when a routing policy chose the models. */
  routing?: RouterDecision;
}

/** What a request consumed, for its bill (an absent count is unknown, not zero). */
export type Consumption = UsageQuantities & { estimated?: boolean };

export interface RequestSettlement {
  caller: Caller;
  endpoint: RequestRecord["endpoint"];
  /** The model string as the client sent it (`router/<id>` too). */
  requestedModel: string;
  /** The client's end-user id. */
  user: string | undefined;
  served: SettledRoute | undefined;
  status: number;
  stream: boolean;
  /** Absent: nothing consumed (a failure). A promise: an estimate still running. */
  consumed?: Consumption | Promise<Consumption>;
  /** How the generation ended (chat): a reason no mapper knows is logged with its raw value. */
  finish?: { reason: FinishReason | undefined; raw: string | undefined };
  /** A failed request's error code, as the client got it. */
  errorCode?: string;
}

/** The longest raw finish reason logged (an upstream token, never content). */
const RAW_FINISH_MAX = 64;

export function settleRequest(
  deps: Pick<PipelineDeps, "settler" | "log">,
  s: RequestSettlement,
): void {
  logFinish(deps, s);
  const { caller } = s;
  const consumed = s.consumed;
  void deps.settler.settle(
    consumed instanceof Promise
      ? consumed.then((used) => settleInput(s, used), (error) => {
        deps.log.error("usage estimate failed; settling without token counts", {
          request_id: caller.requestId,
          reason: error instanceof Error ? error.name : "unknown",
        });
        return settleInput(s, undefined);
      })
      : settleInput(s, consumed),
    caller.trace,
  );
}

/**
 * A whole answer's settle in its admission's commit, when that commit has not been sent yet
 * and what was consumed is known now (`Settler.settleAdmitted`); undefined, nothing done,
 * otherwise.
 */
export function settleInAdmission(
  deps: Pick<PipelineDeps, "settler" | "log">,
  s: RequestSettlement & { consumed: Consumption },
): AdmittedSettle | undefined {
  // Sent already (the common case behind a slow route): no record built for nothing.
  if (!s.caller.admission?.unsent()) return undefined;
  const settle = deps.settler.settleAdmitted(settleInput(s, s.consumed), s.caller.trace);
  if (settle) logFinish(deps, s);
  return settle;
}

function logFinish(deps: Pick<PipelineDeps, "log">, s: RequestSettlement): void {
  if (s.finish?.reason !== "other") return;
  deps.log.warn("upstream finish reason not recognised", {
    request_id: s.caller.requestId,
    provider: s.served?.route.providerId,
    raw: s.finish.raw?.slice(0, RAW_FINISH_MAX),
  });
}

/** The settle's input for what the request consumed (undefined: unknown). */
function settleInput(s: RequestSettlement, used: Consumption | undefined): SettleInput {
  const { caller, served } = s;
  // The optional fields assigned, not spread: spreads made this literal several times dearer.
  const settle: SettleInput = {
    id: caller.requestId,
    startedAt: caller.startedAt,
    org: caller.org,
    keyId: caller.keyId,
    user: s.user,
    endpoint: s.endpoint,
    requestedModel: s.requestedModel,
    // The route that served is priced (a router's pool can serve another catalog model).
    model: served?.route.model,
    // The catalog model that served, direct or routed (as the answer's `model` field does);
    // the upstream id is the route's, named with the provider.
    servedModel: served?.route.model.id,
    provider: served?.route.providerId,
    status: s.status,
    stream: s.stream,
    fallbacks: served?.fallbacks ?? 0,
    estimated: used?.estimated ?? false,
  };
  if (used) { for (const { field } of USAGE_FIELDS) settle[field] = used[field]; }
  if (served?.routing) settle.routingPolicy = served.routing.policy;
  if (caller.notes?.guardrail) settle.guardrail = caller.notes.guardrail;
  if (s.errorCode !== undefined) settle.errorCode = s.errorCode;
  return settle;
}

/**
 * A request that failed: it leaves its row (cost 0, naming the last provider tried) when it
 * reached a provider; a request error refused before any call leaves none. The row's status is
 * the one the client gets.
 */
export function settleFailure(
  deps: Pick<PipelineDeps, "settler" | "log">,
  s: Omit<RequestSettlement, "status" | "consumed" | "finish">,
  error: unknown,
  clientSignal?: AbortSignal,
): void {
  if (!reachedProvider(error, s.served)) return;
  const status = clientStatus(error, clientSignal);
  settleRequest(deps, { ...s, status, errorCode: clientErrorCode(error, status) });
}

/** The error code the client gets with `status` (the app's error handler's). */
function clientErrorCode(error: unknown, status: number): string {
  if (error instanceof GatewayError) return error.code;
  return status === 499 ? "client_closed" : "internal_error";
}

/**
 * The status the client gets for an error (the app's error handler): a GatewayError's own, 499
 * when the client left (its abort surfaces as the fetch's own error), else 500.
 */
export function clientStatus(error: unknown, clientSignal?: AbortSignal): number {
  if (error instanceof GatewayError) return error.status;
  return clientSignal?.aborted ? 499 : 500;
}

/** True when a provider was called: an upstream's answer, an attempt that failed, or a crash. */
export function reachedProvider(error: unknown, lastTried: unknown): boolean {
  return !(error instanceof GatewayError) || error.fromUpstream || lastTried !== undefined;
}
