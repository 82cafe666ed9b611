/** The validated catalog in memory, indexed for the hot path. */
import type { Model, ModelKind, Provider } from "./schema.ts";
import type { ResolvedRoute } from "./resolved_route.ts";
import { modelNotFound, wrongModelKind } from "../errors.ts";

export class Catalog {
  readonly #byId = new Map<string, Model>();
  readonly #routes = new Map<string, ResolvedRoute[]>();

  constructor(
    readonly providers: Readonly<Record<string, Provider>>,
    readonly models: readonly Model[],
  ) {
    for (const model of models) {
      this.#byId.set(model.id, model);
      this.#routes.set(
        model.id,
        model.routes.map((route) => {
          const provider = providers[route.provider]!;
          return {
            providerId: route.provider,
            provider,
            route,
            dialect: route.dialect ?? provider.dialect,
            model,
          };
        }),
      );
    }
  }

  /**
   * Active models clients can call, in catalog order (not `moderation` models: the gateway
   * calls those itself, see `moderationModel`).
   */
  activeModels(): Model[] {
    return this.models.filter((m) => m.state === "active" && m.kind !== "moderation");
  }

  /** The active `moderation` model with this id (the guardrail's remote layer), or undefined. */
  moderationModel(id: string): Model | undefined {
    const model = this.#byId.get(id);
    return model?.state === "active" && model.kind === "moderation" ? model : undefined;
  }

  /** Active `moderation` models, in catalog order. */
  moderationModels(): Model[] {
    return this.models.filter((m) => m.state === "active" && m.kind === "moderation");
  }

  /** The active model with this id and kind, or the spec's 404 / wrong-kind error. */
  requireModel(id: string, kind: ModelKind): Model {
    const model = this.#byId.get(id);
    if (!model || model.state !== "active" || model.kind === "moderation") {
      throw modelNotFound(id, this.suggest(id));
    }
    if (model.kind !== kind) throw wrongModelKind(id, model.kind, kind);
    return model;
  }

  /** The active model whose id without its provider part is `id` (a forgotten prefix). */
  suggest(id: string): string | undefined {
    return this.activeModels().find((m) => m.id.slice(m.id.indexOf("/") + 1) === id)?.id;
  }

  /** Primary first, then standbys. */
  routesOf(model: Model): ResolvedRoute[] {
    return this.#routes.get(model.id) ?? [];
  }
}
