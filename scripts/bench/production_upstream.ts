/**
 * The upstream of the production-shaped scenarios: OpenAI chat completions that take as long as
 * a model does. The answers are the openai simulator's own (its `handleChat` with an instant
 * model, so the bytes are exactly what the simulator sends), written once into a configuration
 * of Debian's nginx with the echo module (`libnginx-mod-http-echo`), which sends them with this
 * timing:
 *
 * - a stream: status, headers, the role chunk and the first content chunk after `--first-ms`
 *   (300), then one content chunk every `--gap-ms` (25) until the answer's `--chunks` (40) are
 *   sent, and `--gap-ms` after the last one the finish chunk, the usage chunk and `[DONE]`
 *   (41 writes, 44 SSE events, 1.3 s);
 * - a non-stream answer: the whole JSON after `--answer-ms` (800).
 *
 * Why nginx: with about 1,000 streams open the load core sends ~30,000 chunks a second to the
 * proxy, and a JavaScript server (`Deno.serve`, or plain sockets) spent about three times what
 * nginx does on each (a timer, a promise, a socket op: 42–49 against 16 µs, measured side by side
 * on the loaded host), enough to make the load core, not the proxy, the limit. nginx runs as one
 * process (`master_process off`) pinned to the load core, so its CPU is one pid's.
 *
 * Two locations, one per answer kind, so each proxy is pointed at the one it is measured with:
 * `/stream/v1/chat/completions` (the stream) and `/json/v1/chat/completions` (the non-stream
 * answer). The request body is read and not looked at.
 */
import { handleChat } from "../simulator/openai/chat_handler.ts";
import { type BenchProcess, commandOutput, freePort, keepTail, watchExit } from "./processes.ts";

export interface ProductionTiming {
  firstMs: number;
  gapMs: number;
  chunks: number;
  answerMs: number;
}

export const PRODUCTION_TIMING: ProductionTiming = {
  firstMs: 300,
  gapMs: 25,
  chunks: 40,
  answerMs: 800,
};

/** How long a stream lasts at the upstream: first chunk, then `chunks` gaps (the last is the end). */
export function streamSeconds(timing: ProductionTiming): number {
  return (timing.firstMs + timing.chunks * timing.gapMs) / 1000;
}

/**
 * The writes of a stream: the SSE events of the simulator's body grouped as the timing says.
 * `events` are `data: …\n\n` strings, role first, `[DONE]` last; `contentChunks` of them follow
 * the role chunk. Write 0 is the role and the first content chunk, write k the content chunk
 * k + 1, the last write everything after the content (finish, usage, `[DONE]`).
 */
export function groupWrites(events: readonly string[], contentChunks: number): string[] {
  const writes = [events.slice(0, 2).join("")];
  for (let i = 2; i <= contentChunks; i++) writes.push(events[i]!);
  writes.push(events.slice(contentChunks + 1).join(""));
  return writes;
}

/** Splits an SSE body into its events, each with its `\n\n`. */
export function splitEvents(body: string): string[] {
  return body.split("\n\n").filter((e) => e !== "").map((e) => `${e}\n\n`);
}

export const ECHO_MODULE = "/usr/lib/nginx/modules/ngx_http_echo_module.so";

/** The answers as the simulator writes them: the stream's writes and the non-stream JSON. */
export async function simulatorAnswers(
  timing: ProductionTiming,
): Promise<{ writes: string[]; json: string }> {
  const request = (stream: boolean) => ({
    model: `bench+chunks-${timing.chunks}`,
    messages: [{ role: "user", content: "Summarise the harbour master's report." }],
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
  const ctx = (seq: number) => ({
    seq,
    requestId: `req_prod${seq}`,
    signal: () => new AbortController().signal,
  });
  const stream = await (await handleChat(request(true), ctx(1))).text();
  const json = await (await handleChat(request(false), ctx(2))).text();
  return { writes: groupWrites(splitEvents(stream), timing.chunks), json };
}

/** A text as an nginx string argument (single-quoted; newlines as `\n`). */
export function nginxString(text: string): string {
  // nginx interpolates `$name` inside strings and has no escape for `$`.
  if (text.includes("$")) throw new Error("nginx strings cannot hold a literal '$'.");
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
}

/** The nginx configuration serving `answers` with `timing` on 127.0.0.1:`port`. */
export function nginxConfig(
  answers: { writes: string[]; json: string },
  timing: ProductionTiming,
  options: { port: number; dir: string },
): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const stream = answers.writes.flatMap((write, i) => [
    ...(i === 0 ? [] : [`echo_sleep ${seconds(timing.gapMs)};`]),
    `echo -n ${nginxString(write)};`,
    "echo_flush;",
  ]);
  return [
    `load_module ${ECHO_MODULE};`,
    "daemon off;",
    "master_process off;",
    "worker_processes 1;",
    `pid ${options.dir}/nginx.pid;`,
    "error_log stderr warn;",
    "events { worker_connections 16384; }",
    "http {",
    "  access_log off;",
    "  keepalive_requests 10000000;",
    "  keepalive_timeout 120s;",
    "  client_body_buffer_size 64k;",
    `  client_body_temp_path ${options.dir}/body;`,
    "  server {",
    `    listen 127.0.0.1:${options.port} backlog=4096;`,
    "    location = /stream/v1/chat/completions {",
    '      default_type "text/event-stream; charset=utf-8";',
    "      echo_read_request_body;",
    `      echo_sleep ${seconds(timing.firstMs)};`,
    ...stream.map((line) => `      ${line}`),
    "    }",
    "    location = /json/v1/chat/completions {",
    "      default_type application/json;",
    "      echo_read_request_body;",
    `      echo_sleep ${seconds(timing.answerMs)};`,
    `      echo -n ${nginxString(answers.json)};`,
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");
}

/** Where nginx is (Debian puts it in /usr/sbin, which a non-root PATH may lack). */
export async function nginxBinary(): Promise<string | undefined> {
  for (const candidate of ["nginx", "/usr/sbin/nginx"]) {
    if ((await commandOutput(candidate, ["-v"])) !== undefined) return candidate;
  }
  return undefined;
}

/**
 * Writes the configuration into `dir` and starts nginx pinned to `cpu`; resolves once it
 * accepts connections, with the origin of each location's `/v1`.
 */
export async function startNginxUpstream(
  timing: ProductionTiming,
  options: { cpu: number; dir: string },
): Promise<{ process: BenchProcess; streamV1: string; jsonV1: string }> {
  const nginx = await nginxBinary();
  if (nginx === undefined) throw new Error("nginx is not installed");
  await Deno.stat(ECHO_MODULE).catch(() => {
    throw new Error(`the nginx echo module (${ECHO_MODULE}) is not installed`);
  });
  const dir = `${options.dir}/nginx-upstream`;
  await Deno.mkdir(`${dir}/body`, { recursive: true });
  const port = freePort();
  const conf = `${dir}/nginx.conf`;
  await Deno.writeTextFile(
    conf,
    nginxConfig(await simulatorAnswers(timing), timing, { port, dir }),
  );
  const child = new Deno.Command("taskset", {
    args: ["-c", String(options.cpu), nginx, "-p", dir, "-c", conf],
    stdout: "null",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const stderr = keepTail(child.stderr);
  const { exited, stop } = watchExit(child);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      if (exited() || Date.now() > deadline) {
        await stop();
        throw new Error(`nginx did not start: ${stderr().trim().slice(-600) || "no output"}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const origin = `http://127.0.0.1:${port}`;
  return {
    process: {
      name: "nginx upstream",
      pid: child.pid,
      hello: {},
      nextLine: () => Promise.resolve(undefined),
      stderrTail: stderr,
      stop,
    },
    streamV1: `${origin}/stream/v1`,
    jsonV1: `${origin}/json/v1`,
  };
}
