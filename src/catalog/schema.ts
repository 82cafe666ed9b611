/**
 * The catalog's two files, exactly as the operator contract describes them. The same
 * schemas validate the files at start-up and generate `catalog/schema/*.json`.
 */
import { z } from "zod";
import type { DialectSettings, DialectTable } from "./dialect_rules.ts";
import type { BILLED_ENDPOINTS, EndpointName } from "../billed_endpoints.ts";
import { type PartPriceField, PRICE_FIELDS, type PriceField } from "../billed_quantities.ts";

/**
 * An upstream dialect id (`openai`, `bedrock` …). The dialects are declared by the provider
 * registry (`providers/registry.ts`) and handed to the schemas below, so the catalog keeps no
 * list of its own.
 */
export type Dialect = string;

const envName = z.string().regex(
  /^[A-Za-z_][A-Za-z0-9_]*$/,
  "must be an environment variable name",
);

/** The name of an environment variable holding a credential (for the dialects' settings blocks). */
export const EnvName = envName;

const ProviderBase = z.strictObject({
  $comment: z.string().optional(),
  dialect: z.string(),
  /** http(s) only: no file:, data: or other schemes for an address that gets credentials. */
  base_url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
    .refine((u) => !u.endsWith("/"), "must not end with '/'"),
  api_key_env: envName.optional(),
  zdr: z.boolean().default(false),
  /**
   * The tier of every route on this provider (contract addition); a route on a provider
   * without it has its model's tier. Organization policies (strict_only) read it.
   */
  sovereignty: z.enum(["strict", "pragmatic"]).optional(),
  unsupported_parameters: z.array(z.string()).default([]),
  /** Display name for listings (an addition to the contract). */
  name: z.string().optional(),
  /**
   * The provider's request schema (`provider_schemas/<file>.json`, relative to the catalog
   * directory): what its endpoints accept (`provider_schema.ts`). Without it, only
   * `unsupported_parameters` and the models' `supported_parameters` shape requests.
   */
  request_schema: z.string().regex(
    /^[A-Za-z0-9_][A-Za-z0-9_./-]*\.json$/,
    "must be a .json file path inside the catalog directory",
  ).refine((p) => !p.split("/").includes(".."), "must stay inside the catalog directory")
    .optional(),
});

/**
 * A provider: the contract's common fields, plus the settings block its dialect declares
 * (`aws` for `bedrock`, `vertex` for `vertex-anthropic`). The block is validated by the
 * dialect's schema at load; its dialect module reads it typed (`settingsOf`).
 */
export type Provider = z.output<typeof ProviderBase> & {
  readonly [settingsField: string]: unknown;
};

/**
 * A provider entry for these dialects: `dialect` one of theirs, each settings block required
 * on its dialect's providers and refused on any other.
 */
export function providerSchema(dialects: DialectTable): z.ZodType<Provider, unknown> {
  const blocks = new Map<string, DialectSettings>();
  for (const d of dialects) if (d.settings) blocks.set(d.settings.field, d.settings);
  const owners = (field: string) =>
    dialects.filter((d) => d.settings?.field === field).map((d) => `'${d.id}'`).join(" or ");
  return ProviderBase
    .extend({
      dialect: z.enum(dialects.map((d) => d.id)),
      ...Object.fromEntries([...blocks].map(([field, s]) => [field, s.schema.optional()])),
    })
    .superRefine((p, ctx) => {
      const own = dialects.find((d) => d.id === p.dialect)?.settings?.field;
      const provider: Readonly<Record<string, unknown>> = p;
      for (const field of blocks.keys()) {
        if (provider[field] !== undefined && field !== own) {
          ctx.addIssue({
            code: "custom",
            path: [field],
            message: `is only allowed for the ${owners(field)} dialect`,
          });
        }
      }
      if (own !== undefined && provider[own] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: [own],
          message: `is required for the '${p.dialect}' dialect`,
        });
      }
    }) as z.ZodType<Provider, unknown>;
}

/** `providers.json` for these dialects. */
export function providersFileSchema(dialects: DialectTable) {
  return z.strictObject({
    $schema: z.string().optional(),
    $comment: z.string().optional(),
    version: z.literal(1),
    providers: z.record(
      z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "provider ids are lower-case"),
      providerSchema(dialects),
    ),
  });
}
export type ProvidersFile = z.output<ReturnType<typeof providersFileSchema>>;

/**
 * `moderation` (an addition to the contract): a classifier the gateway itself calls (the
 * guardrail's optional remote layer); never listed in `/v1/models` nor served to clients.
 */
export const ModelKind = z.enum(["chat", "embedding", "transcription", "speech", "moderation"]);
export type ModelKind = z.infer<typeof ModelKind>;

/** The kind each billed endpoint serves is one of these (a new kind is added above). */
const ENDPOINT_KINDS_KNOWN: (typeof BILLED_ENDPOINTS)[EndpointName]["kind"] extends ModelKind ? true
  : never = true;
void ENDPOINT_KINDS_KNOWN;

const microEur = z.number().int().nonnegative();

/**
 * A prompt-cache price: positive, or left out. Left out, that class of prompt tokens is billed
 * at `prompt_micro_eur_per_million` (the model's provider gives no discount or surcharge), so a
 * provider that reports cached tokens on a model without these prices is never billed below
 * its input price.
 */
const cachePrice = z.number().int().positive(
  "must be a positive price; leave the field out to bill these tokens at the prompt price",
);

/**
 * One optional price per price class (`billed_quantities.ts` `PRICE_FIELDS`, in its order): the
 * prompt cache's classes (Anthropic: reads 10 % of input, writes 125 %, 1-hour writes 200 %;
 * Mistral: reads 10 %) positive or left out, the others any integer micro-EUR.
 */
const pricingShape = {} as {
  [K in PriceField]: z.ZodOptional<K extends PartPriceField ? typeof cachePrice : typeof microEur>;
};
for (const c of PRICE_FIELDS) {
  (pricingShape as Record<string, z.ZodOptional<z.ZodNumber>>)[c.price] =
    ("partOf" in c ? cachePrice : microEur).optional();
}

export const Pricing = z.strictObject(pricingShape);
export type Pricing = z.infer<typeof Pricing>;

export const ReasoningEffortName = z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]);
export type ReasoningEffortName = z.infer<typeof ReasoningEffortName>;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD").refine(
  (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)),
  "must be a real calendar date",
);

/**
 * A model's or a route's lifecycle (additions to the contract): the provider deprecated it on
 * `deprecated_on` (still served, with a warning) and retires it on `retires_on` (from that day,
 * UTC, it is off); `successor` names what replaces it (a catalog model id on a model, an upstream
 * model id on a route).
 */
const lifecycleFields = {
  deprecated_on: isoDate.optional(),
  retires_on: isoDate.optional(),
  successor: z.string().min(1).optional(),
};

export const ModelReasoning = z.strictObject({
  supported_efforts: z.array(ReasoningEffortName).default([]),
  default_effort: ReasoningEffortName.optional(),
  supports_max_tokens: z.boolean().default(false),
  mandatory: z.boolean().default(false),
});

export const AudioFormat = z.enum(["mp3", "wav", "opus", "aac", "flac", "pcm"]);
export type AudioFormat = z.infer<typeof AudioFormat>;

export const ModelLimits = z.strictObject({
  max_input_characters: z.number().int().positive().optional(),
  response_formats: z.array(AudioFormat).min(1).optional(),
  /** Default `max_tokens` sent to upstreams that require one (Anthropic). */
  default_max_tokens: z.number().int().positive().optional(),
});

const qualityFigure = z.number().min(0).max(1);

/**
 * A chat model's quality for the smart router: 0–1, normalised across the catalog; each
 * figure's source and date go in the model's `$comment`.
 */
export const ModelQuality = z.strictObject({
  overall: qualityFigure,
  code: qualityFigure.optional(),
  math: qualityFigure.optional(),
  reasoning: qualityFigure.optional(),
  writing: qualityFigure.optional(),
  multilingual: qualityFigure.optional(),
});
export type ModelQuality = z.infer<typeof ModelQuality>;

/**
 * What a `moderation` model's answer means to the guardrail (required on that kind, refused on
 * any other): the answer's categories that mean prompt injection (Mistral: `jailbreaking`).
 */
export const ModelModeration = z.strictObject({
  injection_categories: z.array(z.string().min(1)).min(1),
});
export type ModelModeration = z.infer<typeof ModelModeration>;

/**
 * What a route's provider does with reasoning where it differs from the model's own figures:
 * the efforts it honours, and its own switch for effort `none` (text appended to the last user
 * message, e.g. Qwen3's `/no_think` on OVHcloud) instead of `reasoning_effort`.
 */
export const RouteReasoning = z.strictObject({
  supported_efforts: z.array(ReasoningEffortName).optional(),
  off_switch: z.string().min(1).optional(),
});

export const Route = z.strictObject({
  $comment: z.string().optional(),
  provider: z.string().min(1),
  upstream_model: z.string().min(1),
  dialect: z.string().optional(),
  /** The context this route's provider accepts, when it is documented (may be below the model's). */
  context_length: z.number().int().positive().optional(),
  reasoning: RouteReasoning.optional(),
  ...lifecycleFields,
});
export type Route = z.infer<typeof Route>;

export const Model = z.strictObject({
  $comment: z.string().optional(),
  id: z.string().regex(
    /^[a-z0-9][a-z0-9-]*\/[A-Za-z0-9][A-Za-z0-9._:-]*$/,
    "must be '<provider>/<model>'",
  ),
  kind: ModelKind,
  state: z.enum(["active", "disabled"]).default("active"),
  name: z.string().optional(),
  context_length: z.number().int().positive().optional(),
  sovereignty: z.enum(["strict", "pragmatic"]),
  pricing: Pricing.default({}),
  supported_parameters: z.array(z.string()).default([]),
  reasoning: ModelReasoning.optional(),
  voices: z.array(z.string().min(1)).min(1).optional(),
  limits: ModelLimits.optional(),
  quality: ModelQuality.optional(),
  moderation: ModelModeration.optional(),
  /**
   * Parameter rules of the model's family: of each group at most one parameter is sent, the
   * first of the group the request carries; the others are dropped and reported (Claude 4.5:
   * `["temperature", "top_p"]`, so temperature wins).
   */
  exclusive_parameters: z.array(z.array(z.string().min(1)).min(2)).optional(),
  ...lifecycleFields,
  routes: z.array(Route).min(1),
});
export type Model = z.infer<typeof Model>;

/** `models.json` for these dialects (a route's `dialect` override is one of them). */
export function modelsFileSchema(dialects: DialectTable) {
  const route = Route.extend({ dialect: z.enum(dialects.map((d) => d.id)).optional() });
  return z.strictObject({
    $schema: z.string().optional(),
    $comment: z.string().optional(),
    version: z.literal(1),
    models: z.array(Model.extend({ routes: z.array(route).min(1) })),
  });
}
export type ModelsFile = z.output<ReturnType<typeof modelsFileSchema>>;
