/**
 * One catalog route made concrete: the provider's settings, the route, its effective dialect
 * and the catalog model it serves. Built by the catalog, consumed by routing and adapters.
 */
import type { Model, Provider, Route } from "./schema.ts";
import type { ProviderRequestSchema } from "./provider_schema.ts";

export interface ResolvedRoute {
  providerId: string;
  provider: Provider;
  route: Route;
  /** The effective dialect (the route's override or the provider's). */
  dialect: Provider["dialect"];
  model: Model;
  /** The provider's request schema (`request_schema`), when the catalog has one for it. */
  requestSchema?: ProviderRequestSchema;
}
