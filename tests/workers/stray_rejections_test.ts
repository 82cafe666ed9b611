/**
 * A rejection nobody handles: with `keepServingOnStrayRejections` (installed by `main.ts` and
 * every worker isolate) the isolate logs it as an error and goes on; without it Deno ends the
 * isolate (the control case, so the test can fail).
 */
import assert from "node:assert/strict";
import { tempDir } from "../helpers/temp_dir.ts";

const MODULE = new URL("../../src/lifecycle/stray_rejections.ts", import.meta.url).href;
const LOG = new URL("../../src/log.ts", import.meta.url).href;

async function runScript(install: boolean) {
  await using tmp = await tempDir();
  const script = `${tmp.path}/stray.ts`;
  await Deno.writeTextFile(
    script,
    `import { keepServingOnStrayRejections } from "${MODULE}";
import { createLogger } from "${LOG}";
if (${install}) keepServingOnStrayRejections(createLogger("info"));
Promise.reject(new Error("CONNECTION_DESTROYED"));
await new Promise((resolve) => setTimeout(resolve, 50));
console.log("still serving");
`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-check", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("stray rejections — logged as an error, the isolate keeps serving", async () => {
  const kept = await runScript(true);
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /still serving/);
  const line = kept.stderr.split("\n").find((l) => l.includes("unhandled rejection"));
  assert.ok(line, kept.stderr);
  const entry = JSON.parse(line);
  assert.equal(entry.level, "error");
  assert.match(entry.reason, /CONNECTION_DESTROYED/);
});

Deno.test("stray rejections — without the handler, Deno ends the isolate (control)", async () => {
  const ended = await runScript(false);
  assert.notEqual(ended.code, 0);
  assert.doesNotMatch(ended.stdout, /still serving/);
});
