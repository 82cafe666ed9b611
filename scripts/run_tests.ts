/**
 * `deno task test`: runs the whole suite with Deno's reporter on the console and a JUnit
 * report on the side, then prints the plain closing line `N passed, M failed` that CI reads.
 * Extra arguments go to `deno test` (e.g. a file or `--filter`).
 */
const report = await Deno.makeTempFile({ prefix: "sovra-junit-", suffix: ".xml" });
const command = new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", "--parallel", `--junit-path=${report}`, ...Deno.args],
  stdout: "inherit",
  stderr: "inherit",
  env: { DENO_JOBS: Deno.env.get("DENO_JOBS") ?? "2" },
});
const { code } = await command.output();

let passed = 0;
let failed = 0;
try {
  const xml = await Deno.readTextFile(report);
  for (const match of xml.matchAll(/<testcase\b[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const inner = match[2] ?? "";
    if (/<failure\b|<error\b/.test(inner)) failed++;
    else if (!/<skipped\b/.test(inner)) passed++;
  }
} catch {
  // No report: deno test could not start (type error, missing file).
}
await Deno.remove(report).catch(() => {});
if (code !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(code === 0 && failed === 0 ? 0 : 1);
