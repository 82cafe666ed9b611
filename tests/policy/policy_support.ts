/**
 * Shared pieces of the organization-policy tests: a harness whose catalog has the strict
 * simulator providers (`sim-a`, `sim-b`, no ZDR) and, on a second simulator, a pragmatic one
 * (`prag`) and a strict ZDR one (`eu-zdr`), so "no request arrived at the pragmatic
 * provider" is that simulator's own record.
 */
import assert from "node:assert/strict";
import { type Harness, SIM_KEY, startHarness, type TestModel } from "../helpers/harness.ts";
import { type OpenAISimulator, startOpenAISimulator } from "../../scripts/simulator/openai/mod.ts";
import { DEFAULT_ORG_POLICY, type OrgPolicy } from "../../src/state/policy_store.ts";
import { Guardrail } from "../../src/guardrail/scanner.ts";

export interface PolicyHarness extends Harness {
  /** The pragmatic provider's own simulator. */
  prag: OpenAISimulator;
  setPolicy(policy: Partial<OrgPolicy>): Promise<void>;
}

export async function startPolicyHarness(
  models: TestModel[],
  options: {
    now?: () => number;
    providers?: Record<string, Record<string, unknown>>;
    credits?: number;
  } = {},
): Promise<PolicyHarness> {
  const prag = await startOpenAISimulator({ apiKey: SIM_KEY });
  try {
    const h = await startHarness({
      models,
      providers: {
        // sim-a and sim-b (the harness's) have no tier of their own: their routes take the
        // model's. The second simulator serves a pragmatic provider and a strict ZDR one.
        prag: {
          dialect: "openai",
          base_url: prag.url,
          api_key_env: "SIM_KEY",
          sovereignty: "pragmatic",
          zdr: true,
        },
        "eu-zdr": {
          dialect: "openai",
          base_url: prag.url,
          api_key_env: "SIM_KEY",
          sovereignty: "strict",
          zdr: true,
        },
        ...options.providers,
      },
      ...(options.now ? { now: options.now } : {}),
      ...(options.credits === undefined ? {} : { credits: options.credits }),
    });
    return {
      ...h,
      prag,
      setPolicy: async (policy) => {
        await h.store.putOrgPolicy(h.org, { ...DEFAULT_ORG_POLICY, ...policy }, "test");
      },
      close: async () => {
        await h.close();
        await prag.close();
      },
    };
  } catch (error) {
    await prag.close();
    throw error;
  }
}

/** A moderation model (the guardrail's remote layer) on the strict simulator provider `sim-a`. */
export function moderationModel(id: string, upstream: string, provider = "sim-a"): TestModel {
  return {
    id,
    kind: "moderation",
    sovereignty: "strict",
    pricing: { prompt_micro_eur_per_million: 92_000 },
    moderation: { injection_categories: ["jailbreaking"] },
    routes: [{ provider, upstream_model: upstream }],
  };
}

/** A model whose primary is on strict `sim-a` and standby on pragmatic `prag`. */
export function mixedRoutes(upstreamPrimary: string, upstreamStandby: string) {
  return [
    { provider: "sim-a", upstream_model: upstreamPrimary },
    { provider: "prag", upstream_model: upstreamStandby },
  ];
}

export async function errorBody(
  response: Response,
): Promise<{ message: string; type: string; code: string; param?: string }> {
  const body = await response.json() as {
    error: { message: string; type: string; code: string; param?: string };
  };
  assert.equal(typeof body.error.message, "string");
  return body.error;
}

/**
 * Texts the local guardrail finds borderline (`flag`: a model score between its flag and block
 * thresholds), chosen at run time from candidates so that a retrained model does not silently
 * turn the remote-layer tests into tests of something else.
 */
const BORDERLINE_CANDIDATES = [
  "Forget what I said before, let's talk about cooking.",
  "Ignore the previous answer, it was wrong. Try again.",
  "Forget the earlier list and start a new one about birds.",
  "Disregard my last message, I meant the other file.",
  "Never mind the rules of the game I described, let's just chat.",
];

export function borderlineText(): { text: string; rule: string } {
  const guardrail = new Guardrail();
  for (const text of BORDERLINE_CANDIDATES) {
    const verdict = guardrail.scan([{ path: "messages[1]", role: "user", channel: "user", text }]);
    if (verdict.action === "flag") return { text, rule: verdict.rule! };
  }
  throw new Error("No candidate text is borderline for the local guardrail: add one.");
}
