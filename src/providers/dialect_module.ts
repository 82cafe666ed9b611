/**
 * One upstream dialect, declared in one place (`providers/<dialect>/dialect.ts`): what the
 * catalog validates (its settings block and credential names, `DialectRules`), what the
 * routing plan reads (its capabilities and its rule-7 refusals) and how its adapter is built.
 * `registry.ts` lists the modules; adding a dialect is its folder plus one line there.
 * Anchor: the AI SDK's provider packages, each declaring what it can and cannot express.
 */
import type { z } from "zod";
import type { ChatRequest } from "../canonical/chat.ts";
import type { DialectRules, DialectSettings } from "../catalog/dialect_rules.ts";
import type { Provider } from "../catalog/schema.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { ProviderAdapter } from "./adapter.ts";

/** What a dialect can carry to its upstream; the routing plan decides with these. */
export interface DialectCapabilities {
  /** Several answer choices in one call (`n` > 1); elsewhere `n` is dropped (rule 1). */
  n: boolean;
  /** `response_format` / `text.format` reaches the model; elsewhere it is ignored (rule 8). */
  responseFormat: boolean;
  /** Hosted tools (web search, MCP …) are forwarded; elsewhere they are refused (rule 7). */
  hostedTools: boolean;
}

/** What every adapter is built from: the credential reader and the fetch (tests pass theirs). */
export interface AdapterDeps {
  /** Reads a credential by environment variable name (`Config.secret`, never `Deno.env`). */
  secret: (name: string) => string | undefined;
  fetch?: typeof fetch;
}

export interface DialectModule extends DialectRules {
  readonly capabilities: DialectCapabilities;
  /**
   * Rule 7: throws the 400 refusal (`refusedField`) when this route cannot express the
   * request. Runs in the routing plan, before any upstream call.
   */
  refusals?(request: ChatRequest, route: ResolvedRoute): void;
  /**
   * The chat request as this route's provider takes it (its request schema: parameters,
   * passed-through fields and message fields it lacks are removed), and the names removed.
   * Runs in the routing plan after rule 1, so `x-sovra-dropped-params` names them.
   */
  conform?(request: ChatRequest, route: ResolvedRoute): { request: ChatRequest; dropped: string[] };
  createAdapter(deps: AdapterDeps): ProviderAdapter;
}

/**
 * A provider's settings block of this dialect, as its schema typed it. The catalog validated
 * the block with that schema when it loaded, so the type holds.
 */
export function settingsOf<S extends z.ZodType>(
  settings: DialectSettings<S>,
  provider: Provider,
): z.output<S> | undefined {
  return provider[settings.field] as z.output<S> | undefined;
}
