/**
 * Spec "What the service does": no prompts and no completions are stored, only metadata;
 * "Authentication": only a SHA-256 hash of a key is stored. Checked on the raw KV file bytes
 * (and its SQLite sidecars) and on every KV entry.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chatModel, startHarness } from "../helpers/harness.ts";
import { ANSWER_TEXT } from "../../scripts/simulator/openai/mod.ts";
import { requestRows } from "../helpers/api.ts";

const PROMPT_CANARY = "PROMPT-CANARY-7f3a";
const SYSTEM_CANARY = "SYSTEM-CANARY-b91c";

/** Every byte form a string may take in SQLite/V8 serialisation: UTF-8/Latin-1 and UTF-16LE. */
function encodings(text: string): Uint8Array[] {
  const utf16 = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    utf16[2 * i] = text.charCodeAt(i) & 0xff;
    utf16[2 * i + 1] = text.charCodeAt(i) >> 8;
  }
  return [new TextEncoder().encode(text), utf16];
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

function stringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) => {
    if (typeof v === "bigint") return v.toString();
    if (v instanceof Deno.KvU64) return v.value.toString();
    if (v instanceof Uint8Array) return new TextDecoder().decode(v);
    return v;
  });
}

Deno.test("privacy — neither prompt nor completion nor the API key is stored; the key's SHA-256 is", async () => {
  const h = await startHarness({ models: [chatModel("acme/chat", "sim-chat")] });
  let closedByTest = false;
  try {
    const messages = [
      { role: "system" as const, content: `Be brief. ${SYSTEM_CANARY}` },
      { role: "user" as const, content: `Tell me something. ${PROMPT_CANARY}` },
    ];
    const completion = await h.client.chat.completions.create({
      model: "acme/chat",
      messages,
      user: "end-user-1",
    });
    const answer = completion.choices[0]?.message.content ?? "";
    assert.ok(answer.includes("weather in the harbour"), "the simulator answer changed");

    const stream = await h.client.chat.completions.create({
      model: "acme/chat",
      messages,
      stream: true,
    });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    assert.ok(streamed.includes("weather in the harbour"));

    // The upstream did get the prompt (so its absence in storage means something).
    assert.ok(JSON.stringify(h.sim.requests).includes(PROMPT_CANARY));
    const rows = await requestRows(h, 2);
    assert.equal(rows.length, 2);

    // Every KV entry, keys and values.
    const secrets = [
      PROMPT_CANARY,
      SYSTEM_CANARY,
      answer,
      "weather in the harbour",
      ANSWER_TEXT.slice(0, 40),
      h.key,
      h.key.slice(6),
    ];
    const hash = createHash("sha256").update(h.key).digest("hex");
    let hashSeen = false;
    let entries = 0;
    for await (const entry of h.store.kv.list({ prefix: [] })) {
      entries++;
      const text = `${stringify(entry.key)} ${stringify(entry.value)}`;
      for (const secret of secrets) {
        assert.ok(
          !text.includes(secret),
          `KV entry ${stringify(entry.key)} holds '${secret.slice(0, 30)}'`,
        );
      }
      if (text.includes(hash)) hashSeen = true;
    }
    assert.ok(entries > 5, `only ${entries} KV entries`);
    assert.ok(hashSeen, "the key's SHA-256 is not stored");

    // The raw bytes of the KV file and its sidecars, after the gateway closed it.
    await h.gateway.close();
    closedByTest = true;
    const dir = h.kvPath.replace(/\/[^/]*$/, "");
    let bytesRead = 0;
    for await (const file of Deno.readDir(dir)) {
      const bytes = await Deno.readFile(`${dir}/${file.name}`);
      bytesRead += bytes.length;
      for (const secret of secrets) {
        for (const needle of encodings(secret)) {
          assert.ok(!contains(bytes, needle), `${file.name} holds '${secret.slice(0, 30)}'`);
        }
      }
    }
    assert.ok(bytesRead > 0, "no KV file found");
    // The check above can fail: the hash itself is in the raw bytes.
    const all = await Promise.all(
      [...Deno.readDirSync(dir)].map((f) => Deno.readFile(`${dir}/${f.name}`)),
    );
    assert.ok(all.some((b) => contains(b, new TextEncoder().encode(hash))), "hash not in the file");
  } finally {
    if (closedByTest) {
      await h.sim.close();
      await Deno.remove(h.catalogDir, { recursive: true });
      await Deno.remove(h.kvPath.replace(/\/[^/]*$/, ""), { recursive: true });
    } else {
      await h.close();
    }
  }
});
