/**
 * The `openai`-dialect body as text, byte-stable with the client's where it can be: providers
 * cache prompts by their bytes, and a proxy that re-serialises JSON (key order, whitespace,
 * `1.0` → `1`, `\u00e9` → `é`) changes the prefix they key on. So when the client's own JSON text
 * is at hand (chat completions), the body sent is that text with only the values that had to
 * change edited in place — the model id always, a dropped parameter, an added `stream_options` —
 * by `jsonc-parser`'s edits, which leave every other byte as it was. The result is checked
 * against the body the adapter built; where they differ (a JSON oddity such as a repeated key),
 * the body is serialised afresh.
 */
import { applyEdits, type JSONPath, modify } from "jsonc-parser";
import type { ClientBody } from "../../canonical/chat.ts";

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Equal as JSON text would be: a property whose value is undefined counts as absent. */
function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((value, i) => sameJson(value ?? null, b[i] ?? null));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
  return keysA.length === keysB.length && keysA.every((k) => k in b && sameJson(a[k], b[k]));
}

/** The edits that turn `from` into `to`, each at the deepest path where they differ. */
function differences(path: JSONPath, from: Json, to: Json, out: Array<[JSONPath, Json]>): void {
  if (sameJson(from, to)) return;
  if (isObject(from) && isObject(to)) {
    for (const key of Object.keys(from)) {
      if (to[key] === undefined) out.push([[...path, key], undefined]);
    }
    for (const [key, value] of Object.entries(to)) {
      if (value === undefined) continue;
      if (key in from) differences([...path, key], from[key], value, out);
      else out.push([[...path, key], value]);
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    to.forEach((value, i) => differences([...path, i], from[i], value, out));
    return;
  }
  out.push([path, to]);
}

/** `body` as JSON text: the client's text edited where they differ, when there is one. */
export function stableBody(body: Record<string, unknown>, client: ClientBody | undefined): string {
  if (client === undefined || !isObject(client.value)) return JSON.stringify(body);
  const edits: Array<[JSONPath, Json]> = [];
  differences([], client.value, body, edits);
  let text = client.text;
  for (const [path, value] of edits) text = applyEdits(text, modify(text, path, value, {}));
  try {
    if (sameJson(JSON.parse(text), body)) return text;
  } catch {
    // Not JSON after the edits: serialise afresh below.
  }
  return JSON.stringify(body);
}
