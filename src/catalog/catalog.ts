/** The validated catalog in memory, indexed for the hot path. */
import type { Model, ModelKind, Provider } from "./schema.ts";
import type { ResolvedRoute } from "./resolved_route.ts";
import type { ProviderRequestSchema } from "./provider_schema.ts";
import { isRetired, retiredMessage, todayUtc } from "./lifecycle.ts";
import { GatewayError, modelNotFound, wrongModelKind } from "../errors.ts";

/** What is served on one UTC day: retirements take effect at midnight, without a reload. */
interface ServedToday {
  day: string;
  /** Active client models not retired, in catalog order. */
  active: Model[];
  /** Each model's routes not retired, primary first. */
  routes: Map<string, ResolvedRoute[]>;
}

export class Catalog {
  readonly #byId = new Map<string, Model>();
  readonly #routes = new Map<string, ResolvedRoute[]>();
  #today: ServedToday | undefined;

  constructor(
    readonly providers: Readonly<Record<string, Provider>>,
    readonly models: readonly Model[],
    /** Request schemas by provider id (`request_schema`). */
    readonly requestSchemas: Readonly<Record<string, ProviderRequestSchema>> = {},
    /** The clock deciding what is retired (tests pass their own). */
    private readonly now: () => number = Date.now,
  ) {
    for (const model of models) {
      this.#byId.set(model.id, model);
      this.#routes.set(
        model.id,
        model.routes.map((route) => {
          const provider = providers[route.provider]!;
          const resolved: ResolvedRoute = {
            providerId: route.provider,
            provider,
            route,
            dialect: route.dialect ?? provider.dialect,
            model,
          };
          const schema = requestSchemas[route.provider];
          if (schema) resolved.requestSchema = schema;
          return resolved;
        }),
      );
    }
  }

  /** Today's UTC date by this catalog's clock. */
  today(): string {
    return todayUtc(this.now());
  }

  #served(): ServedToday {
    const day = this.today();
    if (this.#today?.day === day) return this.#today;
    const routes = new Map<string, ResolvedRoute[]>();
    for (const [id, all] of this.#routes) {
      const live = all.filter((r) => !isRetired(r.route, day));
      // The full array when nothing retired: callers cache per route array.
      routes.set(id, live.length === all.length ? all : live);
    }
    const active = this.models.filter((m) =>
      m.state === "active" && m.kind !== "moderation" && !isRetired(m, day) &&
      (routes.get(m.id)?.length ?? 0) > 0
    );
    return this.#today = { day, active, routes };
  }

  /**
   * Active models clients can call today, in catalog order (not `moderation` models: the
   * gateway calls those itself, see `moderationModel`; not retired ones).
   */
  activeModels(): Model[] {
    return this.#served().active;
  }

  /** The active `moderation` model with this id (the guardrail's remote layer), or undefined. */
  moderationModel(id: string): Model | undefined {
    const model = this.#byId.get(id);
    return model?.state === "active" && model.kind === "moderation" &&
        !isRetired(model, this.today())
      ? model
      : undefined;
  }

  /** Active `moderation` models, in catalog order. */
  moderationModels(): Model[] {
    const day = this.today();
    return this.models.filter((m) =>
      m.state === "active" && m.kind === "moderation" && !isRetired(m, day)
    );
  }

  /**
   * The active model with this id and kind, or the spec's 404 / wrong-kind error. A retired
   * model (or a disabled one with a `successor`) is 404 `model_not_found` naming its successor.
   */
  requireModel(id: string, kind: ModelKind): Model {
    const model = this.#byId.get(id);
    if (!model || model.kind === "moderation") throw modelNotFound(id, this.suggest(id));
    const retired = retiredMessage(model, this.today());
    if (retired !== undefined) throw retiredModel(retired);
    if (model.state !== "active") {
      if (model.successor !== undefined) {
        throw retiredModel(`Model '${id}' is no longer served; use '${model.successor}' instead.`);
      }
      throw modelNotFound(id, this.suggest(id));
    }
    if (model.kind !== kind) throw wrongModelKind(id, model.kind, kind);
    return model;
  }

  /** The active model whose id without its provider part is `id` (a forgotten prefix). */
  suggest(id: string): string | undefined {
    return this.activeModels().find((m) => m.id.slice(m.id.indexOf("/") + 1) === id)?.id;
  }

  /** Primary first, then standbys; routes retired today are left out. */
  routesOf(model: Model): ResolvedRoute[] {
    return this.#served().routes.get(model.id) ?? [];
  }

  /** Every route of the model as the catalog lists it, retired ones included (admin checks). */
  allRoutesOf(model: Model): ResolvedRoute[] {
    return this.#routes.get(model.id) ?? [];
  }
}

function retiredModel(message: string): GatewayError {
  return new GatewayError(
    404,
    "model_not_found",
    `${message} Model ids are '<provider>/<model>'; GET /v1/models lists them.`,
    { param: "model" },
  );
}
