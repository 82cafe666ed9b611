/**
 * The catalog's two files, exactly as the operator contract describes them. The same
 * schemas validate the files at start-up and generate `catalog/schema/*.json`.
 */
import { z } from "zod";

export const Dialect = z.enum(["openai", "bedrock", "vertex-anthropic", "riva-tts"]);
export type Dialect = z.infer<typeof Dialect>;

const envName = z.string().regex(
  /^[A-Za-z_][A-Za-z0-9_]*$/,
  "must be an environment variable name",
);

export const AwsSettings = z.strictObject({
  region: z.string().min(1),
  access_key_id_env: envName,
  secret_access_key_env: envName,
  session_token_env: envName.optional(),
});

export const VertexSettings = z.strictObject({
  project: z.string().min(1),
  region: z.string().min(1),
  service_account_env: envName,
  token_url: z.url({ protocol: /^https?$/ }).default("https://oauth2.googleapis.com/token"),
});

export const Provider = z
  .strictObject({
    $comment: z.string().optional(),
    dialect: Dialect,
    /** http(s) only: no file:, data: or other schemes for an address that gets credentials. */
    base_url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
      .refine((u) => !u.endsWith("/"), "must not end with '/'"),
    api_key_env: envName.optional(),
    aws: AwsSettings.optional(),
    vertex: VertexSettings.optional(),
    zdr: z.boolean().default(false),
    /**
     * The tier of every route on this provider (contract addition); a route on a provider
     * without it has its model's tier. Organization policies (strict_only) read it.
     */
    sovereignty: z.enum(["strict", "pragmatic"]).optional(),
    unsupported_parameters: z.array(z.string()).default([]),
    /** Display name for listings (an addition to the contract). */
    name: z.string().optional(),
  })
  .superRefine((p, ctx) => {
    if (p.aws && p.dialect !== "bedrock") {
      ctx.addIssue({
        code: "custom",
        path: ["aws"],
        message: "is only allowed for the 'bedrock' dialect",
      });
    }
    if (p.vertex && p.dialect !== "vertex-anthropic") {
      ctx.addIssue({
        code: "custom",
        path: ["vertex"],
        message: "is only allowed for the 'vertex-anthropic' dialect",
      });
    }
    if (p.dialect === "bedrock" && !p.aws) {
      ctx.addIssue({
        code: "custom",
        path: ["aws"],
        message: "is required for the 'bedrock' dialect",
      });
    }
    if (p.dialect === "vertex-anthropic" && !p.vertex) {
      ctx.addIssue({
        code: "custom",
        path: ["vertex"],
        message: "is required for the 'vertex-anthropic' dialect",
      });
    }
  });
export type Provider = z.infer<typeof Provider>;

export const ProvidersFile = z.strictObject({
  $schema: z.string().optional(),
  $comment: z.string().optional(),
  version: z.literal(1),
  providers: z.record(
    z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "provider ids are lower-case"),
    Provider,
  ),
});
export type ProvidersFile = z.infer<typeof ProvidersFile>;

export const ModelKind = z.enum(["chat", "embedding", "transcription", "speech"]);
export type ModelKind = z.infer<typeof ModelKind>;

const microEur = z.number().int().nonnegative();

export const Pricing = z.strictObject({
  prompt_micro_eur_per_million: microEur.optional(),
  completion_micro_eur_per_million: microEur.optional(),
  audio_micro_eur_per_hour: microEur.optional(),
  character_micro_eur_per_million: microEur.optional(),
});
export type Pricing = z.infer<typeof Pricing>;

export const ReasoningEffortName = z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]);

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

export const Route = z.strictObject({
  provider: z.string().min(1),
  upstream_model: z.string().min(1),
  dialect: Dialect.optional(),
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
  routes: z.array(Route).min(1),
});
export type Model = z.infer<typeof Model>;

export const ModelsFile = z.strictObject({
  $schema: z.string().optional(),
  $comment: z.string().optional(),
  version: z.literal(1),
  models: z.array(Model),
});
export type ModelsFile = z.infer<typeof ModelsFile>;
