/**
 * A fresh temp directory for a test scope: `await using tmp = await tempDir({ prefix })` removes it
 * with its contents when the scope ends, also when an assertion fails; its name is `tmp.path`.
 */
export async function tempDir(
  options: Deno.MakeTempOptions = {},
): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir(options);
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}
