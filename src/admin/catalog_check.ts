/**
 * `deno task admin catalog check`: the catalog read offline against the provider request
 * schemas and its own rules, before real credentials meet it. Problems (exit 1): a parameter or
 * effort a model lists that its route's provider does not take, a context above the primary
 * route's, a price without a source and date in the model's `$comment`, an active model or route
 * past its `retires_on`, a successor that is not in the catalog. Warnings: deprecations and
 * retirements to come, standbys with less context (a prompt that does not fit skips them).
 */
import type { Catalog } from "../catalog/catalog.ts";
import type { Model } from "../catalog/schema.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import { acceptsField, acceptsValue, type EndpointSchema } from "../catalog/provider_schema.ts";
import { isDeprecated, isRetired } from "../catalog/lifecycle.ts";

export interface CheckFinding {
  /** `model 'mistral/x'` or `route mistral/x of 'mistral/x'`. */
  subject: string;
  message: string;
}

export interface CheckReport {
  ok: boolean;
  /** When the check ran, by the catalog's clock. */
  today: string;
  models: number;
  routes: number;
  problems: CheckFinding[];
  warnings: CheckFinding[];
}

/** Days ahead in which a coming retirement is worth a warning. */
const RETIREMENT_NOTICE_DAYS = 90;

/** A model's client parameter → the `openai` body's name (`reasoning` travels as `reasoning_effort`). */
function wireName(parameter: string): string {
  return parameter === "reasoning" ? "reasoning_effort" : parameter;
}

/** A price sentence naming its source and a date: `Price: <source> …, checked 2026-12-02.` */
const PRICE_SOURCE = /\bprice\b[^]*?\b\d{4}-\d{2}-\d{2}\b/i;

export function checkCatalog(catalog: Catalog): CheckReport {
  const today = catalog.today();
  const problems: CheckFinding[] = [];
  const warnings: CheckFinding[] = [];
  const ids = new Set(catalog.models.map((m) => m.id));
  let routes = 0;
  for (const model of catalog.models) {
    const subject = `model '${model.id}'`;
    if (model.successor !== undefined && !ids.has(model.successor)) {
      problems.push({ subject, message: `successor '${model.successor}' is not in the catalog` });
    }
    if (model.state !== "active") continue;
    checkModelDates(model, today, subject, problems, warnings);
    checkPriceSource(model, subject, problems);
    for (const group of model.exclusive_parameters ?? []) {
      const unknown = group.filter((p) => !model.supported_parameters.includes(p));
      if (unknown.length > 0) {
        warnings.push({
          subject,
          message: `exclusive_parameters names ${
            unknown.join(", ")
          }, which the model does not list`,
        });
      }
    }
    const all = catalog.allRoutesOf(model);
    all.forEach((route, index) => {
      routes++;
      const name = `route ${route.providerId}/${route.route.upstream_model} of '${model.id}'`;
      if (isRetired(route.route, today)) {
        problems.push({
          subject: name,
          message: `retired on ${route.route.retires_on} but still listed: remove it${
            route.route.successor ? ` (successor '${route.route.successor}')` : ""
          }`,
        });
        return;
      }
      checkRouteDates(route, today, name, warnings);
      checkContext(model, route, index === 0, name, problems, warnings);
      checkAgainstSchema(model, route, name, problems);
    });
  }
  return {
    ok: problems.length === 0,
    today,
    models: catalog.models.length,
    routes,
    problems,
    warnings,
  };
}

function checkModelDates(
  model: Model,
  today: string,
  subject: string,
  problems: CheckFinding[],
  warnings: CheckFinding[],
): void {
  const successor = model.successor ? `; successor '${model.successor}'` : "";
  if (isRetired(model, today)) {
    problems.push({
      subject,
      message:
        `retired on ${model.retires_on} but still active: set "state": "disabled"${successor}`,
    });
  } else if (isDeprecated(model, today)) {
    warnings.push({
      subject,
      message: `deprecated on ${model.deprecated_on}${
        model.retires_on ? `, retires on ${model.retires_on}` : ""
      }${successor}`,
    });
  } else if (model.retires_on !== undefined && soon(model.retires_on, today)) {
    warnings.push({ subject, message: `retires on ${model.retires_on}${successor}` });
  }
}

function checkRouteDates(
  route: ResolvedRoute,
  today: string,
  subject: string,
  warnings: CheckFinding[],
): void {
  const r = route.route;
  if (isDeprecated(r, today)) {
    warnings.push({
      subject,
      message: `deprecated on ${r.deprecated_on}${
        r.retires_on ? `, retires on ${r.retires_on}` : ""
      }`,
    });
  } else if (r.retires_on !== undefined && soon(r.retires_on, today)) {
    warnings.push({ subject, message: `retires on ${r.retires_on}` });
  }
}

function soon(date: string, today: string): boolean {
  const days = (Date.parse(`${date}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000;
  return days <= RETIREMENT_NOTICE_DAYS;
}

function checkPriceSource(model: Model, subject: string, problems: CheckFinding[]): void {
  const priced = Object.values(model.pricing).some((v) => v !== undefined && v > 0);
  if (!priced) return;
  if (!PRICE_SOURCE.test(model.$comment ?? "")) {
    problems.push({
      subject,
      message:
        'has prices but its $comment names no price source with a date ("Price: <source>, checked YYYY-MM-DD.")',
    });
  }
}

function checkContext(
  model: Model,
  route: ResolvedRoute,
  primary: boolean,
  subject: string,
  problems: CheckFinding[],
  warnings: CheckFinding[],
): void {
  const own = route.route.context_length;
  if (own === undefined || model.context_length === undefined || own >= model.context_length) {
    return;
  }
  if (primary) {
    problems.push({
      subject,
      message:
        `the model's context_length ${model.context_length} is above what its primary route accepts (${own}): lower the model's`,
    });
  } else {
    warnings.push({
      subject,
      message:
        `accepts ${own} tokens, less than the model's ${model.context_length}: prompts that do not fit skip it`,
    });
  }
}

/** The `openai` dialect sends the model's parameters by their own names: each must be in the schema. */
function checkAgainstSchema(
  model: Model,
  route: ResolvedRoute,
  subject: string,
  problems: CheckFinding[],
): void {
  if (route.dialect !== "openai") return;
  const endpoint = endpointOf(model, route);
  if (endpoint === undefined) return;
  const unsupported = route.provider.unsupported_parameters;
  for (const parameter of model.supported_parameters) {
    if (unsupported.includes(parameter)) continue;
    if (model.kind === "speech" && parameter === "voice" && acceptsField(endpoint, "voice")) {
      continue;
    }
    if (!acceptsField(endpoint, wireName(parameter))) {
      problems.push({
        subject,
        message: `the model lists '${parameter}', which ${route.providerId}'s ${
          endpointName(model)
        } schema does not take (it would be dropped on every request): remove it from supported_parameters, list it in the provider's unsupported_parameters, or add it to the schema if the provider takes it`,
      });
    }
  }
  if (model.kind !== "chat" || !model.supported_parameters.includes("reasoning")) return;
  const efforts = route.route.reasoning?.supported_efforts ?? model.reasoning?.supported_efforts ??
    [];
  const offSwitch = route.route.reasoning?.off_switch;
  for (const effort of efforts) {
    if (effort === "none" && offSwitch !== undefined) continue;
    if (!acceptsValue(endpoint, "reasoning_effort", effort)) {
      problems.push({
        subject,
        message:
          `supported_efforts lists '${effort}', which ${route.providerId}'s reasoning_effort does not take`,
      });
    }
  }
}

function endpointName(model: Model): string {
  return model.kind === "transcription" ? "transcription" : model.kind;
}

function endpointOf(model: Model, route: ResolvedRoute): EndpointSchema | undefined {
  const endpoints = route.requestSchema?.endpoints;
  switch (model.kind) {
    case "chat":
      return endpoints?.chat;
    case "embedding":
      return endpoints?.embeddings;
    case "transcription":
      return endpoints?.transcription;
    case "speech":
      return endpoints?.speech;
    case "moderation":
      return endpoints?.moderation;
  }
}
