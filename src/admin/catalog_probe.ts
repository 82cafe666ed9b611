/**
 * `deno task admin catalog probe [--provider P]`: the catalog against the real providers, with
 * the operator's credentials. First each `openai`-dialect provider's model list (`GET
 * base_url/models`) is compared with the upstream ids of its routes; then every live route gets
 * one minimal request through the same plan and adapter a client request takes (chat: 1 token,
 * not streamed and streamed; embeddings: one word; transcription: half a second of silence;
 * speech: two characters). One line per check: ok, or the provider's error. Credentials are
 * never printed: every credential value is masked in what is shown.
 */
import type { Catalog } from "../catalog/catalog.ts";
import type { Model } from "../catalog/schema.ts";
import type { ResolvedRoute } from "../catalog/resolved_route.ts";
import type { ChatRequest } from "../canonical/chat.ts";
import type { AdapterRegistry, UpstreamCall } from "../providers/adapter.ts";
import { UpstreamFailure } from "../providers/upstream_failure.ts";
import { dialectOf } from "../providers/registry.ts";
import { planRoutes } from "../routing/plan_routes.ts";
import { NO_ROUTING_HOOKS, type PlannedRequest } from "../routing/route_plan.ts";
import { GatewayError } from "../errors.ts";

export interface ProbeLine {
  /** `provider/upstream_model`. */
  route: string;
  model: string;
  check: "listed" | "chat" | "chat-stream" | "embeddings" | "transcription" | "speech";
  ok: boolean;
  /** The provider's error (or why the check could not run). */
  error?: string;
}

export interface ProbeOptions {
  catalog: Catalog;
  adapters: AdapterRegistry;
  /** Reads a credential by environment variable name. */
  secret: (name: string) => string | undefined;
  fetch?: typeof fetch;
  /** Only this provider's routes. */
  provider?: string;
  /** Each call's time limit. */
  timeoutMs?: number;
}

const PROMPT = "Reply with OK.";

export async function probeCatalog(options: ProbeOptions): Promise<ProbeLine[]> {
  const { catalog } = options;
  const mask = credentialMask(catalog, options.secret);
  const lines: ProbeLine[] = [];
  const routes = liveRoutes(catalog, options.provider);
  if (options.provider !== undefined && !(options.provider in catalog.providers)) {
    throw new Error(`Unknown provider '${options.provider}'.`);
  }
  const lists = new Map<string, Promise<Set<string> | string>>();
  for (const route of routes) {
    if (route.dialect !== "openai") continue;
    let list = lists.get(route.providerId);
    if (list === undefined) lists.set(route.providerId, list = modelList(route, options));
    const ids = await list;
    const line = lineFor(route, "listed");
    if (typeof ids === "string") line.error = ids;
    else if (!ids.has(route.route.upstream_model)) {
      line.error = `'${route.route.upstream_model}' is not in ${route.providerId}'s model list`;
    } else line.ok = true;
    lines.push(line);
  }
  for (const route of routes) {
    for (const check of checksOf(route.model)) {
      const line = lineFor(route, check);
      try {
        await runCheck(check, route, options);
        line.ok = true;
      } catch (error) {
        line.error = describe(error);
      }
      lines.push(line);
    }
  }
  for (const line of lines) if (line.error !== undefined) line.error = mask(line.error);
  return lines;
}

function lineFor(route: ResolvedRoute, check: ProbeLine["check"]): ProbeLine {
  return {
    route: `${route.providerId}/${route.route.upstream_model}`,
    model: route.model.id,
    check,
    ok: false,
  };
}

/** Every route clients can reach today (active models, routes not retired). */
function liveRoutes(catalog: Catalog, provider: string | undefined): ResolvedRoute[] {
  const out: ResolvedRoute[] = [];
  for (const model of catalog.activeModels()) {
    for (const route of catalog.routesOf(model)) {
      if (provider === undefined || route.providerId === provider) out.push(route);
    }
  }
  return out;
}

function checksOf(model: Model): ProbeLine["check"][] {
  switch (model.kind) {
    case "chat":
      return ["chat", "chat-stream"];
    case "embedding":
      return ["embeddings"];
    case "transcription":
      return ["transcription"];
    case "speech":
      return ["speech"];
    case "moderation":
      return [];
  }
}

/** The provider's model ids, or what went wrong as text. */
async function modelList(
  route: ResolvedRoute,
  options: ProbeOptions,
): Promise<Set<string> | string> {
  const key = route.provider.api_key_env && options.secret(route.provider.api_key_env);
  try {
    const response = await (options.fetch ?? fetch)(`${route.provider.base_url}/models`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    if (!response.ok) return `GET /models answered ${response.status}: ${text.slice(0, 300)}`;
    const body = JSON.parse(text) as { data?: Array<{ id?: unknown }> };
    return new Set((body.data ?? []).map((m) => String(m.id)));
  } catch (error) {
    return `GET /models failed: ${(error as Error).message}`;
  }
}

/** The request of a check, shaped for this route by the routing plan (as a client's is). */
function planned(check: ProbeLine["check"], route: ResolvedRoute): PlannedRequest {
  const model = route.model;
  switch (check) {
    case "chat":
    case "chat-stream": {
      const request: ChatRequest = {
        model: model.id,
        messages: [{ role: "user", content: PROMPT }],
        stream: check === "chat-stream",
        maxTokens: 1,
        extra: {},
      };
      return { endpoint: "chat", request };
    }
    case "embeddings":
      return { endpoint: "embeddings", request: { model: model.id, body: { input: "ping" } } };
    case "transcription":
      return {
        endpoint: "transcriptions",
        request: {
          audio: silentWav(),
          fileName: "audio.wav",
          mimeType: "audio/wav",
          fields: { responseFormat: "json" },
        },
      };
    case "speech":
      return {
        endpoint: "speech",
        request: {
          input: "OK",
          voice: model.voices?.[0] ?? "default",
          responseFormat: model.limits?.response_formats?.[0] ?? "mp3",
        },
      };
    case "listed":
      throw new Error("not a request");
  }
}

async function runCheck(
  check: ProbeLine["check"],
  route: ResolvedRoute,
  options: ProbeOptions,
): Promise<void> {
  const input = planned(check, route);
  const plan = planRoutes({
    ...input,
    caller: { requestId: "catalog-probe", startedAt: Date.now(), org: "probe", keyId: "probe" },
    catalog: options.catalog,
    model: route.model,
  }, NO_ROUTING_HOOKS);
  const candidate = plan.candidates.find((c) => c.route === route);
  if (candidate === undefined) throw new Error("the routing plan left this route out");
  if (candidate.refusal) throw candidate.refusal;
  const adapter = options.adapters[route.dialect];
  if (adapter === undefined || dialectOf(route.dialect) === undefined) {
    throw new Error(`no adapter for the '${route.dialect}' dialect`);
  }
  const call: UpstreamCall = {
    route,
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  };
  const request = candidate.request;
  switch (input.endpoint) {
    case "chat": {
      const chat = request as ChatRequest;
      if (!chat.stream) {
        await adapter.chat(chat, call);
        return;
      }
      const batches = await adapter.chatStream(chat, call);
      for (;;) {
        const next = await batches.read();
        if (next.done) return;
      }
    }
    case "embeddings":
      if (!adapter.embeddings) throw new Error("the dialect has no embeddings");
      await adapter.embeddings(request as typeof input.request, call);
      return;
    case "transcriptions":
      if (!adapter.transcription) throw new Error("the dialect has no transcription");
      await adapter.transcription(request as typeof input.request, call);
      return;
    case "speech": {
      if (!adapter.speech) throw new Error("the dialect has no speech");
      const answer = await adapter.speech(request as typeof input.request, call);
      await new Response(answer.audio).arrayBuffer();
      return;
    }
    default:
      return;
  }
}

function describe(error: unknown): string {
  if (error instanceof UpstreamFailure) {
    const status = error.status === undefined ? "" : `${error.status} `;
    const body = error.body === undefined ? "" : `: ${error.body.slice(0, 500)}`;
    return `${status}${error.kind}: ${error.message}${body}`;
  }
  if (error instanceof GatewayError) return `${error.status} ${error.code}: ${error.message}`;
  return (error as Error).message ?? String(error);
}

/** Replaces every credential value the catalog's providers read with `[credential]`. */
function credentialMask(
  catalog: Catalog,
  secret: (name: string) => string | undefined,
): (text: string) => string {
  const values = new Set<string>();
  for (const provider of Object.values(catalog.providers)) {
    for (const name of dialectOf(provider.dialect)?.credentials(provider) ?? []) {
      const value = name === undefined ? undefined : secret(name);
      if (value !== undefined && value.length >= 4) values.add(value);
    }
  }
  const sorted = [...values].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const value of sorted) out = out.replaceAll(value, "[credential]");
    return out;
  };
}

/** Half a second of 16 kHz mono 16-bit silence as a WAV file. */
function silentWav(): Uint8Array {
  const samples = 8000;
  const data = samples * 2;
  const bytes = new Uint8Array(44 + data);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + data, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 16000, true);
  view.setUint32(28, 32000, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, data, true);
  return bytes;
}
