/**
 * The `openai`-dialect body as text, byte-stable with the client's where it can be: providers
 * cache prompts by their bytes, and a proxy that re-serialises JSON (key order, whitespace,
 * `1.0` → `1`, `\u00e9` → `é`) changes the prefix they key on. So when the client's own JSON text
 * is at hand (chat completions), the body sent is that text with only the values that had to
 * change edited in place — the model id always, a dropped parameter, an added `stream_options` —
 * leaving every other byte as it was: top-level members by their offsets (`top_level_members.ts`),
 * deeper values by `jsonc-parser`'s edits, whose result is checked against the body the adapter
 * built. A text with a key written twice or with an escape, anywhere, is serialised afresh: parsers
 * disagree on it, and the provider must read what Sovra validated, routed and billed.
 */
import { applyEdits, type JSONPath, modify } from "jsonc-parser";
import type { ClientBody } from "../../canonical/chat.ts";
import { editTopLevel, topLevelMembers } from "./top_level_members.ts";

type Json = unknown;

/** Edits below the top level made in the client's text at most (each parses the whole text). */
const MAX_DEEP_EDITS = 4;
const MAX_DEEP_EDIT_TEXT = 64 * 1024;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Equal as JSON text would be: a property whose value is undefined counts as absent. */
function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, Json>;
  const y = b as Record<string, Json>;
  // Loops, not key arrays: this runs over the whole body once or twice a request.
  let defined = 0;
  for (const key in x) {
    const value = x[key];
    if (value === undefined) continue;
    defined++;
    if (!Object.hasOwn(y, key) || !sameJson(value, y[key])) return false;
  }
  for (const key in y) if (y[key] !== undefined) defined--;
  return defined === 0;
}

/** The edits that turn `from` into `to`, each at the deepest path where they differ. */
function differences(path: JSONPath, from: Json, to: Json, out: Array<[JSONPath, Json]>): void {
  if (isObject(from) && isObject(to)) {
    // Own keys only: a client's `constructor` is not the prototype's.
    for (const key in from) {
      if (!Object.hasOwn(to, key) || to[key] === undefined) out.push([[...path, key], undefined]);
    }
    for (const key in to) {
      const value = to[key];
      if (value === undefined) continue;
      if (!Object.hasOwn(from, key)) out.push([[...path, key], value]);
      else if (!sameJson(from[key], value)) differences([...path, key], from[key], value, out);
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    for (let i = 0; i < to.length; i++) {
      if (!sameJson(from[i], to[i])) differences([...path, i], from[i], to[i], out);
    }
    return;
  }
  out.push([path, to]);
}

/** `body` as JSON text: the client's text edited where they differ, when there is one. */
export function stableBody(body: Record<string, unknown>, client: ClientBody | undefined): string {
  if (client === undefined || !isObject(client.value)) return JSON.stringify(body);
  // A text with a key repeated or escaped anywhere is serialised afresh: another parser could
  // read it otherwise than the one that validated, routed and billed it.
  const top = topLevelMembers(client.text);
  if (top === undefined) return JSON.stringify(body);
  const edits: Array<[JSONPath, Json]> = [];
  differences([], client.value, body, edits);
  if (edits.length === 0) return client.text;
  // Top-level edits only (the model id, a dropped parameter, the stream's usage option): sliced
  // in at the members' offsets.
  if (edits.every(([path]) => path.length === 1)) {
    return editTopLevel(
      client.text,
      top,
      new Map(edits.map(([[key], value]) => [String(key), value])),
    );
  }
  // `jsonc-parser` parses the whole text again for each edit: only a few edits of a body of
  // moderate size are made that way (a request must not buy quadratic CPU); any other body is
  // serialised afresh, which is as stable from one request to the next.
  if (edits.length > MAX_DEEP_EDITS || client.text.length > MAX_DEEP_EDIT_TEXT) {
    return JSON.stringify(body);
  }
  let text = client.text;
  for (const [path, value] of edits) text = applyEdits(text, modify(text, path, value, {}));
  try {
    if (sameJson(JSON.parse(text), body)) return text;
  } catch {
    // Not JSON after the edits: serialise afresh below.
  }
  return JSON.stringify(body);
}
