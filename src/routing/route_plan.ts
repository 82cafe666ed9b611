/**
 * The routing plan's vocabulary: who asks (`Caller`), what they ask (`PlannedRequest`), the
 * ordered attempts decided before any upstream call (`RoutePlan`), and the hooks later
 * features plug in (`RoutingHooks`: guardrail request checks, router model sources, candidate
 * filters such as organization policy). `plan_routes.ts` builds the plan; `try_routes.ts`
 * only executes it.
 */
import type { ChatRequest } from "../canonical/chat.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { Model } from "../catalog/schema.ts";
import type { GatewayError } from "../errors.ts";
import type { EffectivePolicy } from "../policy/effective_policy.ts";
import type { RequestNotes } from "../policy/request_notes.ts";
import type { PlanRefusal } from "../policy/refusal_record.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { RequestTrace } from "../telemetry/telemetry.ts";
import type { UpstreamAdmission } from "../limits/admission.ts";
import type { CacheAffinity } from "./cache_affinity.ts";
import type {
  EmbeddingsRequest,
  SpeechRequest,
  TranscriptionRequest,
} from "../providers/adapter.ts";
import type { EndpointName } from "../billed_endpoints.ts";

/** Who is asking: the authenticated key and its organization, without any HTTP detail. */
export interface Caller {
  requestId: string;
  /** Epoch milliseconds when the request arrived. */
  startedAt: number;
  org: string;
  keyId: string;
  /** The request's telemetry record (timing, span), when it came through the HTTP gate. */
  trace?: RequestTrace;
  /** The key's effective organization policy (absent: no restriction). */
  policy?: EffectivePolicy;
  /** Filled by planning steps (guardrail flag), read by the answer and its metadata. */
  notes?: RequestNotes;
  /** Holds the request's credit before its first upstream call (absent: nothing held). */
  admission?: UpstreamAdmission;
}

/** The request of each endpoint, as the pipeline hands it to the planner. */
export type PlannedRequest =
  | { endpoint: "chat" | "responses"; request: ChatRequest }
  | { endpoint: "embeddings"; request: EmbeddingsRequest }
  | { endpoint: "transcriptions"; request: TranscriptionRequest }
  | { endpoint: "speech"; request: SpeechRequest };

/** Every billed endpoint has its request above: a name missing there is the error here. */
const EVERY_ENDPOINT_PLANNED: [Exclude<EndpointName, PlannedRequest["endpoint"]>] extends [never]
  ? true
  : Exclude<EndpointName, PlannedRequest["endpoint"]> = true;
void EVERY_ENDPOINT_PLANNED;

/** Everything planning reads; nothing in it is mutated. */
export type PlanInput<P extends PlannedRequest = PlannedRequest> = P & {
  caller: Caller;
  catalog: Catalog;
  /** The catalog model the client named; its routes are the default candidates. */
  model: Model;
};

/** One attempt of the plan: a concrete route and what it would be sent. */
export interface RouteCandidate<R> {
  /** `route.model` is the catalog model this route serves: its price applies. */
  route: ResolvedRoute;
  /** The request as filtered for this route (rule 1). */
  request: R;
  /** Parameters removed for this route, for `x-sovra-dropped-params`. */
  dropped: string[];
  /** Values changed for this route (`reasoning.effort=medium->high`), for `x-sovra-adjusted-params`. */
  adjusted?: string[];
  /**
   * Set when this route cannot express the request (rule 7 …). A refused first candidate
   * is the answer; a refused later one is skipped. Decided before any upstream call.
   */
  refusal?: GatewayError;
}

/** A route a plan step took out, and why (for the explanation and logs; no payloads). */
export interface RemovedRoute {
  route: ResolvedRoute;
  step: string;
  reason: string;
}

export interface RoutePlan<R> {
  /** In the order they are tried. */
  candidates: RouteCandidate<R>[];
  removed: RemovedRoute[];
  /** One line per decision, for an explanation header or a debug log. */
  explanation: string[];
  /** Set when a router source chose the models (`router/<id>`). */
  routing?: RouterDecision;
  /**
   * What planning left for later, in order: each runs after the request's credit hold and
   * before its first upstream call, and refuses by throwing (a borderline guardrail verdict's
   * remote classifier). Absent for most requests.
   */
  deferred?: DeferredCheck[];
}

/** A check that needs I/O: the pipeline awaits it, told when the client leaves. */
export type DeferredCheck = (clientSignal: AbortSignal) => Promise<void>;

/** A router's decision, for the answer's headers, the metadata and its pins. */
export interface RouterDecision {
  /** The routing policy id (the `<id>` of `router/<id>`). */
  policy: string;
  /** One line: why this model first (difficulty, dial, rule); ids and numbers only. */
  reason: string;
  /** Told, after a success, the catalog model that served and the tool-call ids it made. */
  onServed?(model: Model, toolCallIds: readonly string[]): void;
}

/** What a router source answers: the ordered models and its decision. */
export interface SourcedModels {
  models: readonly Model[];
  routing: RouterDecision;
}

/**
 * Guardrail hook: inspects the request before planning; throws a `GatewayError` to refuse it,
 * or returns a check that needs I/O (the plan's `deferred`). Never logs or stores the request's
 * content, and writes nothing: a refusal's metadata row travels with its error
 * (`policy/refusal_record.ts` `PlanRefusal`) and the pipeline writes it.
 */
export type RequestCheck = (input: PlanInput) => DeferredCheck | undefined;

/**
 * Router hook: the ordered models to route to for this request (e.g. a pool for
 * `router/<id>`), or `undefined` when the request is not this source's. Their routes become
 * the candidates, model after model. A source that answers replaces the requested model
 * entirely: rule 6 is then the source's to apply (a router picks tool-capable models).
 */
export type ModelSource = (input: PlanInput) => readonly Model[] | SourcedModels | undefined;

/** What a filter that removed every candidate is told, for its error. */
export interface NoneLeft {
  /** The model the client asked for: `router/<id>` for a router, else the catalog id. */
  requested: string;
  /** The candidates this filter removed (a router's: every pool model's routes). */
  routes: readonly ResolvedRoute[];
}

/**
 * A plan step that removes candidates (organization policy …). It fails closed: when it
 * removed every candidate that was left, `noneLeft` is the client's error (a `PlanRefusal`
 * when the refusal leaves a metadata row, which the pipeline writes).
 */
export interface CandidateFilter {
  /** Short name for the explanation, e.g. "org-policy". */
  name: string;
  /** Why this route may not serve the request, or `undefined` to keep it. */
  exclude(route: ResolvedRoute, input: PlanInput): string | undefined;
  noneLeft(input: PlanInput, context: NoneLeft): GatewayError | PlanRefusal;
}

/** The extension points, filled by the composition root (empty by default). */
export interface RoutingHooks {
  requestChecks: readonly RequestCheck[];
  modelSources: readonly ModelSource[];
  filters: readonly CandidateFilter[];
  /**
   * Where caching sessions' prompt caches live (`cache_affinity.ts`): the plan tries that
   * route first among its model's routes; the pipeline tells it each success.
   */
  cacheAffinity?: CacheAffinity;
}

export const NO_ROUTING_HOOKS: RoutingHooks = { requestChecks: [], modelSources: [], filters: [] };
