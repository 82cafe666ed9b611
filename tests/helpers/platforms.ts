/**
 * The two rebuilding-route platforms for end-to-end tests: a Bedrock Runtime simulator
 * (platform A, SigV4) and a Vertex AI simulator for Anthropic models (platform B, JWT grant +
 * bearer token), with the catalog providers and the environment that hold their credentials.
 * Pass `providers` and `env` to `startHarness`; close after the harness.
 *
 * Providers: `aws-eu` (Bedrock, right credentials), `aws-badkey` (Bedrock, wrong secret),
 * `vertex-eu` and `vertex-eu-b` (both on the Vertex simulator, for standby routes).
 */
import {
  type BedrockSimulator,
  startBedrockSimulator,
} from "../../scripts/simulator/bedrock/mod.ts";
import { startVertexSimulator, type VertexSimulator } from "../../scripts/simulator/vertex/mod.ts";
import type { TestModel } from "./harness.ts";
import { DEFAULT_CHAT_PARAMS } from "./harness.ts";

export const AWS_REGION = "eu-central-1";
export const AWS_ACCESS_KEY_ID = "AKIASOVRAE2ESIM00001";
export const AWS_SECRET = "e2e/Secret+Access+Key/0123456789abcdefXYZ";
export const AWS_WRONG_SECRET = "e2e/Wrong+Secret/9876543210fedcbaQRS";

/** Anthropic family upstream ids, and a non-Anthropic Bedrock one. */
export const BEDROCK_CLAUDE = "eu.anthropic.claude-sonnet-4-5-20250929-v1:0";
export const VERTEX_CLAUDE = "claude-sonnet-4-5@20250929";
export const BEDROCK_NOVA = "amazon.nova-pro-v1:0";

/** Prices that make rounding visible (micro-EUR per million tokens). */
export const PRICE_PROMPT = 1_234_567;
export const PRICE_COMPLETION = 2_345_679;

export interface Platforms {
  providers: Record<string, Record<string, unknown>>;
  env: Record<string, string>;
  bedrock: BedrockSimulator;
  vertex: VertexSimulator;
  /** Secrets that must never appear in a response: AWS secret, service-account private key. */
  secrets(): string[];
  /** Bearer tokens the gateway sent to Vertex so far (must never reach a client either). */
  bearerTokens(): string[];
  /** Clears what both simulators recorded. */
  reset(): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startPlatforms(): Promise<Platforms> {
  const bedrock = startBedrockSimulator({
    accessKeyId: AWS_ACCESS_KEY_ID,
    secretAccessKey: AWS_SECRET,
    region: AWS_REGION,
  });
  let vertex: VertexSimulator;
  try {
    vertex = await startVertexSimulator();
  } catch (error) {
    await bedrock.close();
    throw error;
  }
  const aws = (secretEnv: string) => ({
    region: AWS_REGION,
    access_key_id_env: "E2E_AWS_ACCESS_KEY_ID",
    secret_access_key_env: secretEnv,
  });
  const vertexSettings = {
    project: "sim-project",
    region: "europe-west1",
    service_account_env: "E2E_VERTEX_SA",
    token_url: vertex.tokenUrl,
  };
  const privateKey = String(
    (JSON.parse(vertex.serviceAccountJson) as { private_key?: unknown }).private_key,
  );
  return {
    providers: {
      "aws-eu": { dialect: "bedrock", base_url: bedrock.url, aws: aws("E2E_AWS_SECRET") },
      "aws-badkey": { dialect: "bedrock", base_url: bedrock.url, aws: aws("E2E_AWS_WRONG") },
      "vertex-eu": { dialect: "vertex-anthropic", base_url: vertex.url, vertex: vertexSettings },
      "vertex-eu-b": { dialect: "vertex-anthropic", base_url: vertex.url, vertex: vertexSettings },
    },
    env: {
      E2E_AWS_ACCESS_KEY_ID: AWS_ACCESS_KEY_ID,
      E2E_AWS_SECRET: AWS_SECRET,
      E2E_AWS_WRONG: AWS_WRONG_SECRET,
      E2E_VERTEX_SA: vertex.serviceAccountJson,
    },
    bedrock,
    vertex,
    secrets: () => [
      AWS_SECRET,
      AWS_WRONG_SECRET,
      privateKey,
      // The PEM body alone, in case it is re-wrapped.
      privateKey.split("\n").filter((l) => !l.startsWith("-----")).join("").slice(0, 64),
    ],
    bearerTokens: () =>
      vertex.requests.flatMap((r) => {
        const token = /^Bearer (.+)$/.exec(r.headers["authorization"] ?? "")?.[1];
        return token === undefined ? [] : [token];
      }),
    reset: () => {
      bedrock.reset();
      vertex.reset();
    },
    close: async () => {
      await bedrock.close();
      await vertex.close();
    },
    async [Symbol.asyncDispose](this: { close(): Promise<void> }) {
      await this.close();
    },
  };
}

export type Family = "bedrock-claude" | "vertex-claude" | "bedrock-nova";

export const FAMILIES: readonly Family[] = ["bedrock-claude", "vertex-claude", "bedrock-nova"];

/** Provider id and upstream model id of a family, with optional behaviour tokens (`+…`). */
export function routeOf(
  family: Family,
  tokens = "",
): { provider: string; upstream_model: string } {
  switch (family) {
    case "bedrock-claude":
      return { provider: "aws-eu", upstream_model: BEDROCK_CLAUDE + tokens };
    case "vertex-claude":
      return { provider: "vertex-eu", upstream_model: VERTEX_CLAUDE + tokens };
    case "bedrock-nova":
      return { provider: "aws-eu", upstream_model: BEDROCK_NOVA + tokens };
    default:
      return family satisfies never;
  }
}

export const REASONING_BLOCK = {
  supported_efforts: ["low", "medium", "high"],
  supports_max_tokens: true,
  mandatory: false,
};

/**
 * A chat catalog model on rebuilding routes. `reasoning: true` adds the catalog reasoning block
 * (and "reasoning" stays in supported_parameters); Anthropic models get a default max_tokens.
 */
export function platformModel(
  id: string,
  routes: Array<{ provider: string; upstream_model: string }>,
  options: { reasoning?: boolean; tools?: boolean } = {},
): TestModel {
  const anthropic = routes.some((r) => /anthropic|claude/.test(r.upstream_model));
  const params = DEFAULT_CHAT_PARAMS.filter((p) => options.tools !== false || p !== "tools");
  return {
    id,
    kind: "chat",
    sovereignty: "pragmatic",
    pricing: {
      prompt_micro_eur_per_million: PRICE_PROMPT,
      completion_micro_eur_per_million: PRICE_COMPLETION,
    },
    supported_parameters: params,
    routes,
    ...(options.reasoning ? { reasoning: REASONING_BLOCK } : {}),
    ...(anthropic ? { limits: { default_max_tokens: 2048 } } : {}),
  };
}

/** The spec's cost: ceil((p × price_p + c × price_c) / 1e6), in micro-EUR. */
export function expectedCost(prompt: number, completion: number): number {
  return Math.ceil((prompt * PRICE_PROMPT + completion * PRICE_COMPLETION) / 1_000_000);
}

/** Prompt and completion tokens the simulator reported for a recorded request. */
export function reportedUsage(
  usage: Record<string, unknown> | undefined,
): { prompt: number; completion: number } {
  if (usage === undefined) throw new Error("the simulator reported no usage");
  if (typeof usage.inputTokens === "number") {
    // Bedrock: inputTokens excludes cache reads/writes (none reported here).
    return {
      prompt: usage.inputTokens + Number(usage.cacheReadInputTokens ?? 0) +
        Number(usage.cacheWriteInputTokens ?? 0),
      completion: Number(usage.outputTokens),
    };
  }
  return {
    prompt: Number(usage.input_tokens) + Number(usage.cache_read_input_tokens ?? 0) +
      Number(usage.cache_creation_input_tokens ?? 0),
    completion: Number(usage.output_tokens),
  };
}
