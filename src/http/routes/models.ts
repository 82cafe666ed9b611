/**
 * `GET /v1/models`: every active model in OpenAI's list envelope, the same for every key.
 * Each entry carries OpenAI's `id`/`object`/`created`/`owned_by` plus every field of the
 * spec's Model table; zero prices are omitted. Additions: a model's lifecycle (`deprecated_on`,
 * `retires_on`, `successor`) where the catalog sets it; retired models are not listed.
 */
import type { Context } from "hono";
import type { Catalog } from "../../catalog/catalog.ts";
import type { AppDeps } from "../../deps.ts";
import { modelNotFound } from "../../errors.ts";
import type { AppEnv } from "../context.ts";
import { allowedModelsHeader } from "../policy_headers.ts";
import { respond } from "../answer.ts";
import type { Model } from "../../catalog/schema.ts";
import { PRICE_FIELDS } from "../../billed_quantities.ts";

export function modelEntry(model: Model, created: number): Record<string, unknown> {
  const pricing: Record<string, number> = {};
  for (const { price } of PRICE_FIELDS) {
    const value = model.pricing[price];
    if (value) pricing[price] = value;
  }
  const entry: Record<string, unknown> = {
    id: model.id,
    object: "model",
    created,
    owned_by: model.id.split("/", 1)[0],
    kind: model.kind,
    sovereignty: model.sovereignty,
    pricing,
    supported_parameters: model.supported_parameters,
  };
  if (model.name) entry.name = model.name;
  if (model.context_length !== undefined) entry.context_length = model.context_length;
  if (model.reasoning) entry.reasoning = model.reasoning;
  if (model.voices) entry.voices = model.voices;
  if (model.limits?.max_input_characters !== undefined || model.limits?.response_formats) {
    const limits: Record<string, unknown> = {};
    if (model.limits.max_input_characters !== undefined) {
      limits.max_input_characters = model.limits.max_input_characters;
    }
    if (model.limits.response_formats) limits.response_formats = model.limits.response_formats;
    entry.limits = limits;
  }
  if (model.deprecated_on !== undefined) entry.deprecated_on = model.deprecated_on;
  if (model.retires_on !== undefined) entry.retires_on = model.retires_on;
  if (model.successor !== undefined) entry.successor = model.successor;
  return entry;
}

/** The list body per catalog version and UTC day (a retirement takes a model out at midnight). */
const rendered = new WeakMap<Catalog, { day: string; body: string }>();
const createdAt = new WeakMap<Catalog, number>();

/** When this catalog version was loaded (OpenAI's `created`), the same in list and entry. */
function createdOf(catalog: Catalog): number {
  let created = createdAt.get(catalog);
  if (created === undefined) {
    created = Math.floor(Date.now() / 1000);
    createdAt.set(catalog, created);
  }
  return created;
}

/** The list body, rendered once per catalog version. */
export function modelListBody(catalog: Catalog): string {
  const day = catalog.today();
  const cached = rendered.get(catalog);
  if (cached?.day === day) return cached.body;
  const created = createdOf(catalog);
  const body = JSON.stringify({
    object: "list",
    data: catalog.activeModels().map((m) => modelEntry(m, created)),
  });
  rendered.set(catalog, { day, body });
  return body;
}

/** One active model's entry (`GET /v1/models/{id}`, the SDK's `models.retrieve`), or undefined. */
export function modelEntryBody(catalog: Catalog, id: string): string | undefined {
  const model = catalog.activeModels().find((m) => m.id === id);
  return model ? JSON.stringify(modelEntry(model, createdOf(catalog))) : undefined;
}

/** `GET /v1/models`, with the caller's policy header. */
export function modelListHandler(deps: AppDeps) {
  return function modelList(c: Context<AppEnv>) {
    const catalog = deps.catalog.current;
    return respond(c, modelListBody(catalog), {
      "content-type": "application/json",
      ...allowedModelsHeader(catalog, c.get("state").policy),
    });
  };
}

/** `GET /v1/models/{id}`: 404 with a suggestion for an unknown id. */
export function modelEntryHandler(deps: AppDeps) {
  return function modelEntryRoute(c: Context<AppEnv>) {
    // Hono has already decoded the parameter once; decoding again broke ids holding '%'.
    const id = c.req.param("id") ?? "";
    const body = modelEntryBody(deps.catalog.current, id);
    if (body === undefined) throw modelNotFound(id, deps.catalog.current.suggest(id));
    return respond(c, body, { "content-type": "application/json" });
  };
}
