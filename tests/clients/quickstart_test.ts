/**
 * Every SDK quickstart in docs/quickstart.md runs unmodified against a real
 * gateway — the OpenAI Node SDK, the Vercel AI SDK and LangChain JS, each snippet file run as
 * its own process (Deno, npm: packages from deno.json) — and the page shows those files
 * verbatim. The Python snippet runs in `scripts/python_quickstart.sh` (it needs PyPI).
 */
import assert from "node:assert/strict";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { REPO_ROOT } from "../contract/process_support.ts";

const SNIPPETS = ["openai_node.mjs", "ai_sdk.mjs", "langchain.mjs"];

Deno.test("docs/quickstart.md shows every example file verbatim", async () => {
  const page = await Deno.readTextFile(`${REPO_ROOT}docs/quickstart.md`);
  for (const file of [...SNIPPETS, "openai_python.py"]) {
    const code = await Deno.readTextFile(`${REPO_ROOT}docs/examples/${file}`);
    assert.ok(page.includes(code.trimEnd()), `docs/quickstart.md does not show ${file} as it is`);
  }
});

Deno.test("the JS quickstarts chat, stream and call a tool through the gateway", async (t) => {
  await using h = await startHarness({
    models: [chatModel("mistral/mistral-small-2506", "sim-chat")],
  });
  for (const file of SNIPPETS) {
    await t.step(file, async () => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", `docs/examples/${file}`],
        cwd: REPO_ROOT,
        env: {
          NO_COLOR: "1",
          SOVRA_BASE_URL: `${h.url}/v1`,
          SOVRA_API_KEY: h.key,
          SOVRA_MODEL: "mistral/mistral-small-2506",
        },
        stdin: "null",
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, `${stdout}\n${stderr}`);
      assert.match(stdout, /^chat: \S.*$/m);
      assert.match(stdout, /^stream: \S.*$/m);
      assert.match(stdout, /^tool: get_weather \{"city":"[^"]+"\}$/m);
    });
  }
  await h.flushed();
  const rows = await h.store.listRequests(h.org, 100);
  assert.ok(rows.length >= 9, "every call reached the gateway and was recorded");
});
