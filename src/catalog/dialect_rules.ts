/**
 * What the catalog needs to know of an upstream dialect to validate the operator's files: its
 * id, the provider block holding its settings (`aws`, `vertex`) with that block's schema, and
 * the credential variables a provider of it names. Each dialect module declares these
 * (`providers/<dialect>/dialect.ts`) and the provider registry hands the list to the catalog
 * (`loadCatalog(dir, DIALECTS)`), so the catalog holds no switch over dialects.
 */
import type { z } from "zod";
import type { Provider } from "./schema.ts";

/** A dialect's settings block on its providers: `providers.<id>.<field>`, validated by `schema`. */
export interface DialectSettings<S extends z.ZodType = z.ZodType> {
  readonly field: string;
  readonly schema: S;
}

export interface DialectRules {
  /** The `dialect` value in `providers.json`, e.g. `bedrock`. */
  readonly id: string;
  /** Required on every provider of this dialect, refused on any other provider. */
  readonly settings?: DialectSettings;
  /** The environment variables a provider of this dialect reads its credentials from. */
  credentials(provider: Provider): Array<string | undefined>;
}

/** The dialects the catalog accepts, in the order they are listed (the registry's). */
export type DialectTable = readonly DialectRules[];
