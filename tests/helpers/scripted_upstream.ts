/**
 * Spec-compliance audit helpers: a scriptable `openai`-dialect upstream (a real HTTP server on
 * 127.0.0.1, port 0) whose answer each test writes itself, wired into the running-gateway
 * harness as provider `script`. Used where the simulator cannot produce the wire shape a probe
 * needs (several choices, usage inside the last content chunk, a throttle with `Retry-After`).
 */
import {
  chatModel,
  type Harness,
  type HarnessOptions,
  startHarness,
  type TestModel,
} from "./harness.ts";
import { isRecord, type Json } from "./json.ts";

export { isRecord, type Json };

export interface ScriptedUpstream {
  url: string;
  /** JSON bodies received, in order. */
  bodies: Json[];
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Answers every POST with `answer(body)`; records the JSON bodies. */
export function startScriptedUpstream(
  answer: (body: Json, path: string) => Response | Promise<Response>,
): ScriptedUpstream {
  const bodies: Json[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = await req.text();
    let body: Json = {};
    try {
      body = JSON.parse(text) as Json;
    } catch {
      // not JSON (multipart): recorded as empty
    }
    bodies.push(body);
    return await answer(body, new URL(req.url).pathname);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    bodies,
    close: () => server.shutdown(),
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A harness whose model `audit/chat` (or the given models) is served by the scripted upstream. */
export async function withScripted(
  answer: (body: Json, path: string) => Response | Promise<Response>,
  fn: (h: Harness, up: ScriptedUpstream) => Promise<void>,
  options: { models?: TestModel[]; extra?: Partial<HarnessOptions> } = {},
): Promise<void> {
  await using up = startScriptedUpstream(answer);
  await using h = await startHarness({
    models: options.models ?? [scriptModel("audit/chat")],
    providers: { script: { dialect: "openai", base_url: up.url, api_key_env: "SIM_KEY" } },
    ...options.extra,
  });
  await fn(h, up);
}

/** A chat model whose single route is the scripted upstream. */
export function scriptModel(id: string, extra: Partial<TestModel> = {}): TestModel {
  return chatModel(id, "up-model", {
    routes: [{ provider: "script", upstream_model: "up-model" }],
    ...extra,
  });
}

export const user = (content: string) => ({ role: "user" as const, content });

/** A chat.completion body in the openai dialect. */
export function completion(choices: Json[], usage?: Json): Json {
  return {
    id: "up-1",
    object: "chat.completion",
    created: 1,
    model: "up-model",
    choices,
    ...(usage ? { usage } : {}),
  };
}

/** An SSE response of the given chunks, then `[DONE]` unless `done` is false. */
export function sse(chunks: Json[], done = true): Response {
  let text = "";
  for (const c of chunks) text += `data: ${JSON.stringify(c)}\n\n`;
  if (done) text += "data: [DONE]\n\n";
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

export function chunk(choices: Json[], extra: Json = {}): Json {
  return {
    id: "up-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "up-model",
    choices,
    ...extra,
  };
}

export { readToEnd as readAll } from "./sse.ts";

/** The data payloads of a chat SSE text (complete events only). */
export function dataEvents(text: string): string[] {
  const parts = text.split("\n\n");
  parts.pop();
  return parts.map((p) => p.replace(/^data: /, ""));
}
