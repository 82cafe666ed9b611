/**
 * What a request consumes and how it is priced, once. `USAGE_FIELDS`: every usage quantity a
 * request's metadata row carries (its settle input's field and its row's column, in the row's
 * order). `PRICE_FIELDS`: every price class, the catalog's `pricing` field, the usage it prices
 * and the unit its price is per. The catalog's `Pricing`, the cost's `PricedUsage` and its terms,
 * `/v1/models`' prices, the row's usage columns and the export's column list derive from these
 * (or are checked against them by the compiler), so a new price class starts here and the type
 * checker points at each place that must learn it (ARCHITECTURE.md, "To add X").
 */
export const USAGE_FIELDS = [
  { field: "promptTokens", column: "prompt_tokens" },
  { field: "completionTokens", column: "completion_tokens" },
  { field: "totalTokens", column: "total_tokens" },
  { field: "audioSeconds", column: "audio_seconds" },
  { field: "characters", column: "characters" },
] as const;

export type UsageField = (typeof USAGE_FIELDS)[number]["field"];
export type UsageColumn = (typeof USAGE_FIELDS)[number]["column"];

/** A request's usage as the settle takes it: each quantity, when measured or estimated. */
export type Usage = { [K in UsageField]?: number | undefined };

/** Its columns in the metadata row: `null` when not measured. */
export type UsageColumns = { [K in UsageColumn]: number | null };

/** The usage columns, in the row's order. */
export const USAGE_COLUMNS: readonly UsageColumn[] = USAGE_FIELDS.map((u) => u.column);

export const PRICE_FIELDS = [
  { price: "prompt_micro_eur_per_million", usage: "promptTokens", per: "million" },
  { price: "completion_micro_eur_per_million", usage: "completionTokens", per: "million" },
  { price: "audio_micro_eur_per_hour", usage: "audioSeconds", per: "hour" },
  { price: "character_micro_eur_per_million", usage: "characters", per: "million" },
] as const satisfies readonly PriceClass[];

export interface PriceClass {
  /** The catalog's `pricing` field, integer micro-EUR per `per` units of `usage`. */
  price: string;
  usage: UsageField;
  /** A million units (tokens, characters) or an hour (of seconds). */
  per: "million" | "hour";
}

export type PriceField = (typeof PRICE_FIELDS)[number]["price"];
/** The usage quantities that are priced. */
export type PricedUsageField = (typeof PRICE_FIELDS)[number]["usage"];
