/**
 * Holds many streaming requests open at once (against a slow upstream model) so the runner
 * can read the proxy's memory while they are open, then reads every stream to its end.
 *
 *   deno run -A scripts/bench/open_streams.ts --spec '{"url","headers","body"}' --count 1000
 *
 * Prints two JSON lines on stdout: `{"event":"open","open":n,"failed":m,"ms":t}` once every
 * request has its response headers, then `{"event":"done","completed":n,"errors":m,"ms":t}`.
 * Every request is aborted after `--timeout-ms` (default 60 000), so the run always ends.
 */
import { parseArgs } from "node:util";
import type { RequestSpec } from "./workload.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    spec: { type: "string" },
    count: { type: "string", default: "1000" },
    "timeout-ms": { type: "string", default: "60000" },
  },
});
if (values.spec === undefined) {
  console.error("Missing --spec (a JSON request spec).");
  Deno.exit(2);
}
const spec = JSON.parse(values.spec) as RequestSpec;
const count = Number(values.count);
const timeoutMs = Number(values["timeout-ms"]);
const BATCH = 100;

const client = Deno.createHttpClient({ poolMaxIdlePerHost: count });
const start = performance.now();
const opened: Array<Promise<Response | undefined>> = [];
for (let i = 0; i < count; i++) {
  opened.push(
    fetch(spec.url, {
      method: "POST",
      headers: spec.headers,
      body: spec.body,
      client,
      signal: AbortSignal.timeout(timeoutMs),
    }).then((res) => res, () => undefined),
  );
  // Let the listener's accept queue drain between bursts of connects.
  if ((i + 1) % BATCH === 0) await new Promise((resolve) => setTimeout(resolve, 5));
}
const responses = await Promise.all(opened);
const open = responses.filter((r) => r !== undefined && r.status === 200).length;
console.log(JSON.stringify({
  event: "open",
  open,
  failed: count - open,
  ms: Math.round(performance.now() - start),
}));

let completed = 0;
let errors = count - open;
await Promise.all(responses.map(async (res) => {
  if (res === undefined) return;
  try {
    const text = await res.text();
    if (res.status === 200 && text.includes("[DONE]")) completed++;
    else errors++;
  } catch {
    errors++;
  }
}));
client.close();
console.log(JSON.stringify({
  event: "done",
  completed,
  errors,
  ms: Math.round(performance.now() - start),
}));
