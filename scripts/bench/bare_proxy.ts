/**
 * The floor for our stack: a bare `Deno.serve` + `fetch` pass-through proxy. It reads the
 * request body, forwards it with the content type and authorization, and streams the upstream
 * body back untouched. No parsing, no auth, no accounting.
 *
 *   deno run -A scripts/bench/bare_proxy.ts --upstream http://127.0.0.1:PORT
 *
 * Prints one JSON line on stdout: `{"url", "pid"}`. Stops on SIGTERM/SIGINT. SIGUSR1 prints the
 * event-loop delay since the last one (loop_delay.ts).
 */
import { parseArgs } from "node:util";
import { reportLoopDelayOnSignal } from "./loop_delay.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { upstream: { type: "string" }, port: { type: "string", default: "0" } },
});
const upstream = values.upstream?.replace(/\/+$/, "");
if (upstream === undefined) {
  console.error("Missing --upstream (the simulator's origin, without /v1).");
  Deno.exit(2);
}

async function proxy(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  const contentType = req.headers.get("content-type");
  if (contentType !== null) headers["content-type"] = contentType;
  const authorization = req.headers.get("authorization");
  if (authorization !== null) headers.authorization = authorization;
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
  const up = await fetch(`${upstream}${url.pathname}${url.search}`, {
    method: req.method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: req.signal,
  });
  const outHeaders: Record<string, string> = {};
  const upType = up.headers.get("content-type");
  if (upType !== null) outHeaders["content-type"] = upType;
  return new Response(up.body, { status: up.status, headers: outHeaders });
}

const server = Deno.serve(
  { port: Number(values.port), hostname: "127.0.0.1", onListen() {} },
  proxy,
);
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.addr.port}`, pid: Deno.pid }));

reportLoopDelayOnSignal();

const stop = async () => {
  await server.shutdown();
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
