/**
 * The naming lint (`scripts/lint/naming_plugin.ts`, rules in `docs/naming.md`): each rule
 * reports what it exists to catch and stays quiet on the names it allows, and `deno lint`
 * with the repository's configuration runs it.
 */
import assert from "node:assert/strict";
import plugin from "../../scripts/lint/naming_plugin.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

function diagnostics(file: string, source: string): string[] {
  return Deno.lint.runPlugin(plugin, `${ROOT}${file}`, source).map((d) => d.id);
}

Deno.test("no-numeric-suffix — an exported class or type named with a trailing digit is reported", () => {
  assert.deepEqual(
    diagnostics(
      "src/telemetry/x.ts",
      "export class SeriesCache2 {}\nexport interface Row3 {}\nexport type Pair2 = [1, 2];\n",
    ),
    [
      "sovra-naming/no-numeric-suffix",
      "sovra-naming/no-numeric-suffix",
      "sovra-naming/no-numeric-suffix",
    ],
  );
  assert.deepEqual(
    diagnostics(
      "src/telemetry/x.ts",
      "export class SeriesCacheByPair {}\nclass Local2 {}\nexport function sha256() {}\n",
    ),
    [],
  );
});

Deno.test("no-renamed-folder — an import from src/dialects/ or src/router/ is reported", () => {
  assert.deepEqual(
    diagnostics(
      "src/http/routes/x.ts",
      'import { a } from "../../dialects/chat/decode_request.ts";\n' +
        'export { b } from "../../router/policy.ts";\n' +
        'import { c } from "../../smart_router/policy.ts";\n' +
        'import { d } from "hono";\n',
    ),
    ["sovra-naming/no-renamed-folder", "sovra-naming/no-renamed-folder"],
  );
});

Deno.test("no-dialect-in-api-formats — the word is refused in identifiers of src/api_formats/ only", () => {
  const source = "export const chatDialect = 1;\n// the openai dialect upstream\n";
  assert.deepEqual(diagnostics("src/api_formats/chat/x.ts", source), [
    "sovra-naming/no-dialect-in-api-formats",
  ]);
  assert.deepEqual(diagnostics("src/providers/openai/x.ts", source), []);
});

Deno.test("deno lint — the repository's configuration runs the naming plugin", async () => {
  const dir = await Deno.makeTempDir({ prefix: "naming_lint_fixture_" });
  try {
    await Deno.writeTextFile(`${dir}/fixture.ts`, "export class SeriesCache2 {}\n");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["lint", "--json", "--config", `${ROOT}deno.json`, `${dir}/fixture.ts`],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.success, false);
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.deepEqual(
      report.diagnostics.map((d: { code: string }) => d.code),
      ["sovra-naming/no-numeric-suffix"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
