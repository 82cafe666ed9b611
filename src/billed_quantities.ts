/**
 * What a request consumes and how it is priced, once.
 *
 * `USAGE_FIELDS`: every usage quantity a request's metadata row carries — its settle input's
 * field and its row's column. `PRICE_FIELDS`: every price class — the catalog's `pricing` field,
 * the usage it prices, the unit its price is per, and, for a class that is a part of another
 * quantity (a cache read is part of the prompt), the quantity it is a part of and the price it
 * falls back to when the catalog gives none.
 *
 * The catalog's `Pricing`, the cost's `PricedUsage` and its terms, `/v1/models`' prices, the
 * settle's input and `Consumption`, the row's usage columns and the export's line derive from
 * these (or are checked against them by the compiler), so a new price class starts here and the
 * type checker points at each place that must learn it (ARCHITECTURE.md, "To add X").
 */
export const USAGE_FIELDS = [
  { field: "promptTokens", column: "prompt_tokens" },
  { field: "completionTokens", column: "completion_tokens" },
  { field: "totalTokens", column: "total_tokens" },
  { field: "audioSeconds", column: "audio_seconds" },
  { field: "characters", column: "characters" },
  // Of the prompt tokens: read from the provider's cache; written to it (every TTL); of those
  // writes, the ones with the 1-hour TTL. Null in a row when the provider reported no counts.
  { field: "cachedPromptTokens", column: "cached_tokens" },
  { field: "cacheWritePromptTokens", column: "cache_write_tokens" },
  { field: "cacheWrite1hPromptTokens", column: "cache_write_1h_tokens" },
] as const;

export type UsageField = (typeof USAGE_FIELDS)[number]["field"];
export type UsageColumn = (typeof USAGE_FIELDS)[number]["column"];

/** A request's usage as the settle takes it: each quantity when measured or estimated. */
export type UsageQuantities = { [K in UsageField]?: number | undefined };

/** Its columns in the metadata row: `null` when not measured. */
export type UsageColumns = { [K in UsageColumn]: number | null };

export interface PriceClass {
  /** The catalog's `pricing` field: integer micro-EUR per `per` units of `usage`. */
  price: string;
  usage: UsageField;
  /** A million units (tokens, characters) or an hour (of seconds). */
  per: "million" | "hour";
  /**
   * The quantity this one is a part of (cache reads are prompt tokens): those units are billed
   * at this class's price and not again at the whole's; a count beyond the whole is capped by it.
   */
  partOf?: UsageField;
  /** The price these units are billed at when the catalog gives this class none. */
  otherwise?: string;
}

/**
 * The price classes. A class that is a part of another comes after it; the whole's price then
 * applies to what its parts leave (a prompt's uncached tokens, the 5-minute cache writes).
 */
export const PRICE_FIELDS = [
  { price: "prompt_micro_eur_per_million", usage: "promptTokens", per: "million" },
  { price: "completion_micro_eur_per_million", usage: "completionTokens", per: "million" },
  { price: "audio_micro_eur_per_hour", usage: "audioSeconds", per: "hour" },
  { price: "character_micro_eur_per_million", usage: "characters", per: "million" },
  {
    price: "cached_prompt_micro_eur_per_million",
    usage: "cachedPromptTokens",
    per: "million",
    partOf: "promptTokens",
    otherwise: "prompt_micro_eur_per_million",
  },
  {
    price: "cache_write_micro_eur_per_million",
    usage: "cacheWritePromptTokens",
    per: "million",
    partOf: "promptTokens",
    otherwise: "prompt_micro_eur_per_million",
  },
  {
    price: "cache_write_1h_micro_eur_per_million",
    usage: "cacheWrite1hPromptTokens",
    per: "million",
    partOf: "cacheWritePromptTokens",
    otherwise: "cache_write_micro_eur_per_million",
  },
] as const satisfies readonly PriceClass[];

export type PriceField = (typeof PRICE_FIELDS)[number]["price"];
/** The usage quantities that are priced. */
export type PricedUsageField = (typeof PRICE_FIELDS)[number]["usage"];
/** The price classes that are parts of another quantity (the prompt cache's). */
export type PartPriceField = Extract<(typeof PRICE_FIELDS)[number], { partOf: string }>["price"];
