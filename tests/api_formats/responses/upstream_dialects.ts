/**
 * The three upstream dialects behind `POST /v1/responses` in the end-to-end suite: the openai
 * simulator (`sim-a`), Anthropic on Bedrock and Anthropic on Vertex, each with a plain model
 * and a reasoning model, and what each upstream reported as usage.
 */
import assert from "node:assert/strict";
import type { Harness, TestModel } from "../../helpers/harness.ts";
import { platformModel, type Platforms, reportedUsage, routeOf } from "../../helpers/platforms.ts";

export type DialectName = "openai" | "bedrock" | "vertex";

export interface DialectCase {
  name: DialectName;
  /** Catalog id of a plain model. */
  plain: string;
  /** Catalog id of a reasoning model (catalog `reasoning` block, upstream that thinks). */
  thinking: string;
}

export const DIALECTS: readonly DialectCase[] = [
  { name: "openai", plain: "e2e/openai", thinking: "e2e/openai-thinking" },
  { name: "bedrock", plain: "e2e/bedrock", thinking: "e2e/bedrock-thinking" },
  { name: "vertex", plain: "e2e/vertex", thinking: "e2e/vertex-thinking" },
];

/** Plain and reasoning models of every dialect, plus `extra` upstream token variants. */
export function dialectModels(): TestModel[] {
  const openai = (tokens: string) => [{ provider: "sim-a", upstream_model: `sim-chat${tokens}` }];
  return [
    platformModel("e2e/openai", openai("")),
    platformModel("e2e/openai-thinking", openai("+reasoning"), { reasoning: true }),
    platformModel("e2e/bedrock", [routeOf("bedrock-claude")]),
    platformModel("e2e/bedrock-thinking", [routeOf("bedrock-claude", "+reasoning")], {
      reasoning: true,
    }),
    platformModel("e2e/vertex", [routeOf("vertex-claude")]),
    platformModel("e2e/vertex-thinking", [routeOf("vertex-claude", "+reasoning")], {
      reasoning: true,
    }),
  ];
}

/**
 * Prompt and completion tokens the upstream reported for its last answer; for the openai
 * simulator (which records no usage) undefined.
 */
export function upstreamUsage(
  dialect: DialectName,
  p: Platforms,
): { prompt: number; completion: number } | undefined {
  switch (dialect) {
    case "openai":
      return undefined;
    case "bedrock":
      return reportedUsage(p.bedrock.requests.at(-1)?.usage);
    case "vertex":
      return reportedUsage(p.vertex.requests.at(-1)?.usage);
    default:
      return dialect satisfies never;
  }
}

/** The chat bodies the openai simulator received, in order. */
export function openaiBodies(h: Harness): Array<Record<string, unknown>> {
  return h.sim.requests
    .filter((r) => r.path.endsWith("/chat/completions"))
    .map((r) => {
      assert.ok(typeof r.body === "object" && r.body !== null);
      return r.body as Record<string, unknown>;
    });
}
