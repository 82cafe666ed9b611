/**
 * The official Python SDK over httpx, itself: its reused connections send the body in a write
 * of its own after the headers. Twenty calls each with a valid key (200), an unknown one (401),
 * one without credit (402) and one past its rpm (429), on one client (one connection pool),
 * and the same with httpx alone: every call gets its own status, never a 400 (before, 2 of 20
 * 402s came back as 400 through the connection relay, and no SDK retries a 400).
 *
 * Python packages come from PyPI into a venv of the test's own (kept in the temp directory
 * between runs, keyed by the pinned versions). Without python3 or PyPI the test is skipped
 * with a message saying which; `.ci/run` installs python3 and venv so CI runs it.
 */
import assert from "node:assert/strict";
import { chatModel } from "../helpers/harness.ts";
import { startProcessGateway } from "./process_gateway.ts";

const PACKAGES = ["httpx==0.28.1", "openai==3.51.0"];
const CALLS = 20;

async function run(cmd: string, args: string[]): Promise<{ ok: boolean; text: string }> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return { ok: out.success, text };
  } catch (error) {
    return { ok: false, text: String(error) };
  }
}

/** A venv's python with the packages, or why there is none. */
async function pythonWithSdk(): Promise<{ python?: string; why?: string }> {
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/sovra-test-venv-${PACKAGES.join("-")}`;
  const python = `${dir}/bin/python`;
  const ready = await run(python, ["-c", "import httpx, openai"]);
  if (ready.ok) return { python };
  const venv = await run("python3", ["-m", "venv", "--clear", dir]);
  if (!venv.ok) return { why: `python3 -m venv failed (install python3-venv): ${venv.text}` };
  const pip = await run(python, [
    "-m",
    "pip",
    "install",
    "--quiet",
    "--disable-pip-version-check",
    ...PACKAGES,
  ]);
  if (!pip.ok) return { why: `pip could not install ${PACKAGES.join(" ")} (PyPI unreachable?)` };
  return { python };
}

const SCRIPT = `
import json, sys
import httpx, openai
url, keys, calls = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
body = {"model": "acme/chat", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 16}
out = {}
for name, key in keys.items():
    sdk = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
    statuses = []
    for _ in range(calls):
        try:
            sdk.chat.completions.create(**body)
            statuses.append(200)
        except openai.APIStatusError as e:
            statuses.append(e.status_code)
    out["sdk " + name] = statuses
    with httpx.Client(headers={"authorization": "Bearer " + key}) as client:
        out["httpx " + name] = [
            client.post(url + "/v1/chat/completions", json=body).status_code for _ in range(calls)
        ]
print(json.dumps(out))
`;

const setup = await pythonWithSdk();
if (setup.why) console.warn(`python_sdk_test skipped: ${setup.why}`);

Deno.test({
  name:
    "openai Python SDK and httpx — 200 / 401 / 402 / 429 each as such on reused connections, never 400",
  ignore: setup.python === undefined,
  fn: async () => {
    await using gw = await startProcessGateway({
      models: [chatModel("acme/chat", "up")],
      extraKeys: [{ credits: 0, rpm: 1_000_000 }, { credits: 1_000_000_000, rpm: 1 }],
    });
    const [broke, limited] = gw.extra as [string, string];
    const keys = {
      valid: gw.key,
      unknown: "sk-sovra-not-a-key-at-all-0000000000",
      broke,
      limited,
    };
    const result = await run(setup.python!, [
      "-c",
      SCRIPT,
      gw.url,
      JSON.stringify(keys),
      `${CALLS}`,
    ]);
    assert.ok(result.ok, result.text);
    const statuses = JSON.parse(result.text) as Record<string, number[]>;
    const expected: Record<string, number> = { valid: 200, unknown: 401, broke: 402 };
    for (const [label, list] of Object.entries(statuses)) {
      assert.equal(list.length, CALLS);
      assert.ok(!list.includes(400), `${label}: ${list}`);
      const name = label.split(" ")[1]!;
      // The rpm-1 key: its first call of the minute may pass, every other one is a 429.
      if (name === "limited") assert.ok(list.slice(1).every((s) => s === 429), `${label}: ${list}`);
      else assert.ok(list.every((s) => s === expected[name]), `${label}: ${list}`);
    }
  },
});
