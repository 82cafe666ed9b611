/**
 * `deno task bench --peers` runs Portkey's gateway, whose start script binds every interface
 * and has no host option; the bench preloads scripts/bench/loopback_listen.mjs so it listens
 * on 127.0.0.1 only (review item 11). Checked here with Node servers that, like Portkey's,
 * name no host (and one naming every interface).
 */
import assert from "node:assert/strict";
import { LOOPBACK_PRELOAD } from "../../scripts/bench/peers.ts";

const SERVER = `
import http from "node:http";
const forms = [
  (s, cb) => s.listen(0, cb),
  (s, cb) => s.listen(0, "0.0.0.0", cb),
  (s, cb) => s.listen({ port: 0 }, cb),
  (s, cb) => s.listen({ port: 0, host: "::" }, cb),
];
const addresses = [];
for (const form of forms) {
  const server = http.createServer();
  await new Promise((resolve) => form(server, resolve));
  addresses.push(server.address().address);
  server.close();
}
console.log(JSON.stringify(addresses));
`;

async function boundAddresses(preload: boolean): Promise<string[]> {
  const args = [
    ...(preload ? [`--import=${LOOPBACK_PRELOAD}`] : []),
    "--input-type=module",
    "-e",
    SERVER,
  ];
  const out = await new Deno.Command("node", { args, stdout: "piped", stderr: "piped" }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const hasNode = await new Deno.Command("node", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
})
  .output().then((o) => o.success, () => false);

Deno.test({
  name: "bench peers — the loopback preload makes a host-less Node listener bind 127.0.0.1 only",
  ignore: !hasNode,
  async fn() {
    // Without the preload the same script binds every interface (what the review found).
    assert.ok((await boundAddresses(false)).some((a) => a !== "127.0.0.1"));
    assert.deepEqual(await boundAddresses(true), [
      "127.0.0.1",
      "127.0.0.1",
      "127.0.0.1",
      "127.0.0.1",
    ]);
  },
});
