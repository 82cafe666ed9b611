/**
 * Runs the openai-dialect upstream simulator standalone (benchmark, demo, manual use):
 *   deno run --allow-net scripts/simulator/openai/main.ts --port 8787 [--api-key KEY] [--record]
 *     [--chat-wait-ms N (every chat answer waits N ms first)]
 * Prints its base URL (ending in /v1) on stdout. Requests are not recorded unless `--record`.
 */

import { parseArgs } from "node:util";
import { startOpenAISimulator } from "./mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    port: { type: "string", default: "0" },
    hostname: { type: "string", default: "127.0.0.1" },
    "api-key": { type: "string" },
    record: { type: "boolean", default: false },
    "chat-wait-ms": { type: "string", default: "0" },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`Invalid port '${values.port}'.`);
  Deno.exit(2);
}

const chatWaitMs = Number(values["chat-wait-ms"]);
if (!Number.isInteger(chatWaitMs) || chatWaitMs < 0) {
  console.error(`Invalid --chat-wait-ms '${values["chat-wait-ms"]}'.`);
  Deno.exit(2);
}

const simulator = await startOpenAISimulator({
  chatWaitMs,
  port,
  hostname: values.hostname,
  recordRequests: values.record,
  ...(values["api-key"] === undefined ? {} : { apiKey: values["api-key"] }),
});
console.log(simulator.url);

const stop = async () => {
  await simulator.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
