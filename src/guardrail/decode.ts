/**
 * Encoded payloads: runs of base64 or hex of at least 24 characters are decoded and kept when
 * the result reads as text; ROT13 and reversed text are tried only when the text itself asks
 * for them ("rot13", "reverse"). Each decoded view is scanned like plain text. Output is capped
 * at 4× the input and `maxBytes` in total, so a crafted body cannot make the scan expensive.
 */

import { type Anchors, askPosition, MIN_ENCODED_RUN } from "./rules/anchors.ts";
import { textPass } from "./text_pass.ts";
import { DECODE_ASKS } from "./decode_asks.ts";

export interface DecodedView {
  encoding: "base64" | "hex" | "rot13" | "reversed";
  text: string;
}

const PRINTABLE = /^[\t\n\r\x20-\x7e\u00a0-\u024f]*$/;

/**
 * `normalized` is `raw` through normalizeText (the ROT13/reverse requests are looked up there);
 * `anchors` the text pass's anchors of it, when the caller has them already; `aligned` when
 * `normalized` has `raw`'s positions (ASCII text, only lower-cased).
 */
export function decodeViews(
  raw: string,
  normalized: string,
  anchors: Anchors = textPass(normalized, null).anchors,
  aligned = false,
  maxBytes = 65_536,
): DecodedView[] {
  const views: DecodedView[] = [];
  let budget = Math.min(maxBytes, raw.length * 4);
  const push = (view: DecodedView) => {
    if (budget <= 0 || view.text.length < 8) return;
    const text = view.text.slice(0, budget);
    budget -= text.length;
    views.push({ encoding: view.encoding, text });
  };
  // The text pass saw no run long enough in the normalised text (which has every run of
  // `raw`, lower-cased, or a longer one): nothing to decode. Else runs lie on the lines from
  // the one where it saw the first to the one where it saw the last (same positions when
  // aligned, the same line numbers otherwise).
  const { encodedRunAt: first, lastRunAt: last } = anchors;
  let runs: string[] = [];
  if (first !== -1) {
    const [from, to] = aligned
      ? [raw.lastIndexOf("\n", first) + 1, lineEnd(raw, last)]
      : rawLines(raw, normalized, first, last);
    runs = encodedRuns(raw, from, to);
  }
  for (const run of runs) {
    if (budget <= 0) break;
    const hex = /^(?:[0-9a-fA-F]{2}[\s:]?)+$/.test(run);
    const text = hex ? fromHex(run) : fromBase64(run);
    if (text !== undefined && readsAsText(text)) push({ encoding: hex ? "hex" : "base64", text });
  }
  // ROT13 and reversal only near the request for them (a few KB), not the whole body.
  DECODE_ASKS.forEach((ask, k) => {
    const at = askPosition(anchors, normalized, k);
    if (at === -1) return;
    const text = near(raw, at);
    push({
      encoding: ask.encoding,
      text: ask.encoding === "rot13" ? rot13(text) : [...text].reverse().join(""),
    });
  });
  return views;
}

/** Per ASCII code: 0 other, 1 base64 alphabet (incl. url-safe and `=`), 3 also a hex digit. */
const CLASS = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=") {
  CLASS[ch.charCodeAt(0)] = 1;
}
for (const ch of "0123456789abcdefABCDEF") CLASS[ch.charCodeAt(0)] = 3;

/**
 * Runs of at least 24 base64-alphabet characters (with `=` padding), or of hex pairs separated
 * by single spaces or colons, from position `from` (a line start) to `to` (a line end, or the
 * text's end); one pass over that part of the text, no regular expression.
 */
export function encodedRuns(raw: string, from = 0, to = raw.length): string[] {
  const runs: string[] = [];
  const length = to;
  let start = -1;
  let hexOnly = true;
  for (let i = from; i <= length; i++) {
    const c = i < length ? raw.charCodeAt(i) : 0;
    const cls = c < 128 ? CLASS[c]! : 0;
    if (cls !== 0) {
      if (start === -1) {
        start = i;
        hexOnly = true;
      }
      if (cls !== 3) hexOnly = false;
      continue;
    }
    if (start === -1) continue;
    // A single space or colon between hex pairs keeps a hex run going.
    if (hexOnly && (c === 32 || c === 58) && i + 1 < length) {
      const next = raw.charCodeAt(i + 1);
      if (next < 128 && CLASS[next] === 3) continue;
    }
    if (i - start >= MIN_ENCODED_RUN) runs.push(raw.slice(start, i).trim());
    start = -1;
  }
  return runs;
}

/**
 * The start of the line of `raw` that holds the text pass's first run candidate and the end of
 * the line that holds its last, by line number: normalisation neither adds nor removes line
 * feeds (tag text is appended after the last line), so a candidate's line in `normalized` is
 * the same line of `raw` (past raw's last line, in the appended tag text: the whole text).
 * No run of `raw` lies on another line: its ASCII characters are a run of the normalised text
 * on the same line.
 */
function rawLines(raw: string, normalized: string, first: number, last: number): [number, number] {
  const firstLine = lineNumber(normalized, first);
  const lastLine = firstLine + lineNumber(normalized, last, first);
  let start = 0;
  let line = 0;
  for (; line < firstLine; line++) {
    const p = raw.indexOf("\n", start);
    if (p === -1) return [0, raw.length];
    start = p + 1;
  }
  let end = start;
  for (; line <= lastLine; line++) {
    const p = raw.indexOf("\n", end);
    if (p === -1) return [start, raw.length];
    end = p + 1;
  }
  return [start, end - 1];
}

/** How many line feeds `text` has from `from` to before `at`. */
function lineNumber(text: string, at: number, from = 0): number {
  let line = 0;
  for (let p = text.indexOf("\n", from); p !== -1 && p < at; p = text.indexOf("\n", p + 1)) line++;
  return line;
}

/** The position of the line feed ending the line that holds `at`, or the text's length. */
function lineEnd(text: string, at: number): number {
  const p = text.indexOf("\n", at);
  return p === -1 ? text.length : p;
}

function near(raw: string, index: number): string {
  return raw.slice(Math.max(0, index - 512), index + 2048);
}

function fromBase64(run: string): string | undefined {
  let s = run.replace(/-/g, "+").replace(/_/g, "/").replace(/[=\s:]/g, "");
  // Letters only (a long identifier, a word) are rarely base64 of text: needs a digit, a
  // case change inside, or a padding/alphabet character.
  if (!/[0-9+/]/.test(s) && !/[a-z][A-Z]/.test(s)) return undefined;
  s = s.slice(0, s.length - (s.length % 4 === 1 ? 1 : 0));
  while (s.length % 4 !== 0) s += "=";
  let binary: string;
  try {
    binary = atob(s);
  } catch {
    return undefined; // not base64 after all (a hex-looking run with separators, a stray '=')
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const text = UTF8.decode(bytes);
  return text.includes("\ufffd") ? undefined : text;
}

const UTF8 = new TextDecoder("utf-8");

function fromHex(run: string): string | undefined {
  const digits = run.replace(/[\s:]/g, "");
  if (digits.length % 2 !== 0) return undefined;
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  const text = UTF8.decode(bytes);
  return text.includes("\ufffd") ? undefined : text;
}

/** Mostly letters and spaces, no control bytes: a decoded blob that is language. */
function readsAsText(text: string): boolean {
  if (!PRINTABLE.test(text)) return false;
  const letters = text.match(/[a-zA-Z\u00c0-\u024f]/g)?.length ?? 0;
  const spaces = text.match(/\s/g)?.length ?? 0;
  return letters / text.length > 0.6 && spaces >= 1;
}

export function rot13(text: string): string {
  const codes = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    codes[i] = c >= 65 && c <= 90
      ? (c - 52) % 26 + 65
      : c >= 97 && c <= 122
      ? (c - 84) % 26 + 97
      : c;
  }
  return new TextDecoder("utf-16le").decode(codes);
}
