/**
 * A second `deno task demo` that fails on the port leaves the running demo
 * alone — its catalog (pointing at its own simulators) is not rewritten, so the first demo's
 * next reload still serves.
 */
import assert from "node:assert/strict";
import { REPO_ROOT } from "../contract/process_support.ts";

/** A port nothing listens on right now. */
function freePort(): number {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  return port;
}

interface Demo {
  child: Deno.ChildProcess;
  stdout: string[];
  stderr: string[];
  waitFor(stream: "stdout" | "stderr", match: RegExp): Promise<string>;
  stop(): Promise<void>;
}

function startDemo(cwd: string, env: Record<string, string>): Demo {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${REPO_ROOT}scripts/demo.ts`],
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = { stdout: [] as string[], stderr: [] as string[] };
  let ended = false;
  const pump = (stream: ReadableStream<Uint8Array>, into: string[]) =>
    (async () => {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) into.push(chunk);
    })();
  const pumps = Promise.all([pump(child.stdout, out.stdout), pump(child.stderr, out.stderr)])
    .then(() => ended = true);
  return {
    child,
    ...out,
    async waitFor(stream, match) {
      // A safety net, not a timing assert: a missing line fails instead of hanging.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const text = out[stream].join("");
        const found = match.exec(text);
        if (found) return found[1] ?? found[0];
        if (ended || Date.now() > deadline) {
          throw new Error(`no ${match} in ${stream}:\n${text}\n${out.stderr.join("")}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      await child.status;
      await pumps;
    },
  };
}

Deno.test("a second demo failing on the port does not break the running one", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "sovra-demo-test-" });
  const [port, dashboardPort, otherPort] = [freePort(), freePort(), freePort()];
  const env = {
    SOVRA_PORT: String(port),
    SOVRA_DASHBOARD_PORT: String(dashboardPort),
    SOVRA_KV: `${cwd}/sovra.kv`,
    SOVRA_CATALOG: `${REPO_ROOT}catalog`,
  };
  const first = startDemo(cwd, env);
  try {
    const key = await first.waitFor("stdout", /API key:\s+(sk-ex-\S+)/);
    const model = await first.waitFor("stdout", /"model": "([^"]+)"/);
    const chat = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
      });
      await response.body?.cancel();
      return response.status;
    };
    assert.equal(await chat(), 200);

    // A second demo on the same ports, then one whose dashboard port alone is busy.
    for (
      const [variable, ports] of [
        ["SOVRA_PORT", {}],
        ["SOVRA_DASHBOARD_PORT", { SOVRA_PORT: String(otherPort) }],
      ] as const
    ) {
      const second = startDemo(cwd, { ...env, ...ports });
      const status = await second.child.status;
      await second.stop();
      assert.equal(status.code, 1);
      assert.match(second.stderr.join(""), new RegExp(`set ${variable} to a free port`));
    }

    // The first demo reloads its catalog (as after an edit) and still reaches its simulators.
    first.child.kill("SIGHUP");
    await first.waitFor("stderr", /catalog reloaded/);
    assert.equal(await chat(), 200);
  } finally {
    await first.stop();
    await Deno.remove(cwd, { recursive: true });
  }
});
