/**
 * Where each top-level member of a JSON object's text is — its key, and its value's first and
 * past-the-end offsets — so top-level values can be replaced, removed or added by slicing, every
 * other byte as it was. For text that `JSON.parse` accepted (the client's body): no validation
 * beyond what finding the members and checking the keys needs.
 *
 * `jsonc-parser` builds a node per value to edit one path (`modify` → `parseTree`: ~120 µs for a
 * 12 KB body, measured), and its `visit` scans every character in JavaScript (~100 µs) even when
 * told to skip nested values. The model id and the stream's usage option are top-level members:
 * here strings are skipped with `indexOf` and nested values by their brackets, ~10× less.
 */

/** One top-level member: `"key": value`, `start` at the key's quote, `valueEnd` past the value. */
export interface Member {
  key: string;
  start: number;
  valueStart: number;
  valueEnd: number;
}

export interface TopLevel {
  members: Member[];
  /** The offset of the object's closing `}`. */
  close: number;
}

const WHITESPACE = /[ \t\n\r]*/y;
const LITERAL = /[^ \t\n\r,}\]]+/y;
const BRACKETS = /["{}[\]]/g;

function skipWhitespace(text: string, from: number): number {
  WHITESPACE.lastIndex = from;
  WHITESPACE.test(text);
  return WHITESPACE.lastIndex;
}

/** Past the string whose opening quote is at `quote`; -1 when it does not end. */
function stringEnd(text: string, quote: number): number {
  let at = quote + 1;
  for (;;) {
    at = text.indexOf('"', at);
    if (at === -1) return -1;
    let backslash = at - 1;
    while (text.charCodeAt(backslash) === 92) backslash--;
    // An even number of backslashes before it: this quote is not escaped.
    if ((at - 1 - backslash) % 2 === 0) return at + 1;
    at++;
  }
}

/** A key is plain when it has no escape: its text is its name, as every parser reads it. */
function plainKey(text: string, quote: number, end: number, keys: Set<string>): boolean {
  const key = text.slice(quote + 1, end - 1);
  if (key.includes("\\") || keys.has(key)) return false;
  keys.add(key);
  return true;
}

/**
 * Past the value that starts at `from` (a string, an object, an array or a literal); -1 when
 * there is none, or when an object inside it has a key written with an escape or twice.
 */
function valueEnd(text: string, from: number): number {
  const first = text.charCodeAt(from);
  if (first === 34) return stringEnd(text, from);
  if (first === 123 || first === 91) {
    // The keys seen in each enclosing object; null for an array.
    const open: Array<Set<string> | null> = [];
    BRACKETS.lastIndex = from;
    for (let m = BRACKETS.exec(text); m !== null; m = BRACKETS.exec(text)) {
      const c = m[0];
      if (c === '"') {
        const end = stringEnd(text, m.index);
        if (end === -1) return -1;
        const keys = open[open.length - 1];
        if (keys && text.charCodeAt(skipWhitespace(text, end)) === 58) {
          if (!plainKey(text, m.index, end, keys)) return -1;
        }
        BRACKETS.lastIndex = end;
      } else if (c === "{") open.push(new Set());
      else if (c === "[") open.push(null);
      else {
        open.pop();
        if (open.length === 0) return m.index + 1;
      }
    }
    return -1;
  }
  LITERAL.lastIndex = from;
  return LITERAL.test(text) ? LITERAL.lastIndex : -1;
}

/**
 * The top-level members of an object's text, in order; undefined when the text is not an object,
 * or a key anywhere in it is written with an escape or twice. Parsers disagree on those (which of
 * two values counts; an escaped key repeating another): such a text is never forwarded as it is.
 */
export function topLevelMembers(text: string): TopLevel | undefined {
  let at = skipWhitespace(text, 0);
  if (text.charCodeAt(at) !== 123) return undefined;
  const members: Member[] = [];
  const keys = new Set<string>();
  at = skipWhitespace(text, at + 1);
  if (text.charCodeAt(at) === 125) return { members, close: at };
  for (;;) {
    if (text.charCodeAt(at) !== 34) return undefined;
    const keyEnd = stringEnd(text, at);
    if (keyEnd === -1) return undefined;
    if (!plainKey(text, at, keyEnd, keys)) return undefined;
    const key = text.slice(at + 1, keyEnd - 1);
    const colon = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(colon) !== 58) return undefined;
    const valueStart = skipWhitespace(text, colon + 1);
    const end = valueEnd(text, valueStart);
    if (end === -1) return undefined;
    members.push({ key, start: at, valueStart, valueEnd: end });
    at = skipWhitespace(text, end);
    const next = text.charCodeAt(at);
    if (next === 125) return { members, close: at };
    if (next !== 44) return undefined;
    at = skipWhitespace(text, at + 1);
  }
}

/**
 * `text` with top-level values replaced (`key` → value), removed (→ undefined) or added (keys it
 * lacks, after its last member). The bytes before the first member, between members that stay
 * and after the last one stay as they were, and so does every member not edited.
 */
export function editTopLevel(
  text: string,
  top: TopLevel,
  edits: ReadonlyMap<string, unknown>,
): string {
  const { members } = top;
  const end = members.length > 0 ? members[members.length - 1]!.valueEnd : top.close;
  let out = text.slice(0, members.length > 0 ? members[0]!.start : top.close);
  let kept = 0;
  for (let i = 0; i < members.length; i++) {
    const member = members[i]!;
    const edited = edits.has(member.key);
    const value = edited ? edits.get(member.key) : undefined;
    if (edited && value === undefined) continue;
    // The separator written before it in the text (a comma and its whitespace).
    if (kept > 0) out += text.slice(members[i - 1]!.valueEnd, member.start);
    out += edited
      ? text.slice(member.start, member.valueStart) + JSON.stringify(value)
      : text.slice(member.start, member.valueEnd);
    kept++;
  }
  const present = new Set(members.map((m) => m.key));
  for (const [key, value] of edits) {
    if (present.has(key) || value === undefined) continue;
    out += (kept++ > 0 ? "," : "") + JSON.stringify(key) + ":" + JSON.stringify(value);
  }
  return out + text.slice(end);
}
