/**
 * Benign prose for the evaluation only (never training: train.ts reads dataset.ts, not this):
 * enough rows per language to measure a false-positive rate near 1 %, from sources the
 * training never saw.
 *
 * - Debian's fortune-cookie collections (quotations, anecdotes, jokes, definitions) in English
 *   (`fortunes-min`), German, Spanish, Italian and Polish: short everyday prose full of
 *   imperatives ("forget…", "never trust…");
 * - the Debian installation guide (`installation-guide-amd64`) in English, German, French,
 *   Spanish, Italian and Dutch: instructional prose ("skip this step", "ignore the warning").
 *
 * The packages are fetched with `apt-get download` into data/guardrail/debs (not committed)
 * and unpacked with `dpkg-deb -x`; on a machine without them the rows are left out with a note.
 * A fixed sample per (source, language): every k-th item of a stable order.
 */
import type { Row } from "./rows.ts";

const PACKAGES = [
  "fortunes-min",
  "fortunes-de",
  "fortunes-es",
  "fortunes-it",
  "fortunes-pl",
  "installation-guide-amd64",
];
const PER_CELL = 120;
const FORTUNE_DIRS: Record<string, string> = { en: "", de: "de", es: "es", it: "it", pl: "pl" };
const FORTUNE_SKIP = /^(?:asciiart|banner|off|.*\.(?:dat|u8))$/;
const GUIDE_LANGUAGES = ["en", "de", "fr", "es", "it", "nl"];

/**
 * The rows are split in two by a hash of the text: the development half may be looked at
 * (false positives read, rules fixed); the test half is only counted. The evaluation reports
 * the test half.
 */
export function isDevelopmentProse(text: string): boolean {
  let h = 0x9747b28c;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1e995);
  return ((h >>> 0) % 2) === 1;
}

export async function externalProseRows(cache: string, notes: string[]): Promise<Row[]> {
  const root = `${cache}/debs/root`;
  if (!await exists(`${root}/usr/share/doc/installation-guide-amd64`)) {
    if (!await fetchPackages(`${cache}/debs`, root)) {
      notes.push("external prose: apt-get download failed; no fortunes / installation guide rows");
      return [];
    }
  }
  const rows: Row[] = [];
  for (const [language, dir] of Object.entries(FORTUNE_DIRS)) {
    const path = `${root}/usr/share/games/fortunes${dir === "" ? "" : `/${dir}`}`;
    const items: string[] = [];
    for (const name of await fileNames(path)) {
      if (
        FORTUNE_SKIP.test(name) ||
        (dir === "" && !["fortunes", "literature", "riddles"].includes(name))
      ) {
        continue;
      }
      const text = await Deno.readTextFile(`${path}/${name}`).catch(() => "");
      for (const item of text.split(/\n%\n/)) items.push(item.replace(/\s+/g, " ").trim());
    }
    rows.push(...sample(items, language, "fortunes"));
  }
  for (const language of GUIDE_LANGUAGES) {
    const path = `${root}/usr/share/doc/installation-guide-amd64/${language}`;
    const items: string[] = [];
    for (const name of await fileNames(path)) {
      if (!name.endsWith(".html")) continue;
      const html = await Deno.readTextFile(`${path}/${name}`).catch(() => "");
      for (const match of html.matchAll(/<p>([\s\S]*?)<\/p>/g)) {
        items.push(decodeEntities(match[1]!.replace(/<[^>]+>/g, "")));
      }
    }
    rows.push(...sample(items, language, "installation-guide"));
  }
  return rows;
}

function sample(items: string[], language: string, source: string): Row[] {
  // Prose of a message's length; no ASCII-art, tables or lists of options.
  const prose = [...new Set(items)].filter((t) =>
    t.length >= 60 && t.length <= 800 && (t.match(/\p{L}/gu)?.length ?? 0) / t.length > 0.6
  );
  const step = Math.max(1, Math.floor(prose.length / PER_CELL));
  return prose.filter((_, i) => i % step === 0).slice(0, PER_CELL).map((text) => ({
    text,
    label: 0,
    language,
    channel: "user",
    kind: "prose",
    source,
  }));
}

async function fetchPackages(dir: string, root: string): Promise<boolean> {
  await Deno.mkdir(root, { recursive: true });
  const download = await new Deno.Command("apt-get", {
    args: ["download", ...PACKAGES],
    cwd: dir,
    stdout: "null",
    stderr: "null",
  }).output().catch(() => undefined);
  if (!download?.success) return false;
  for (const name of await fileNames(dir)) {
    if (!name.endsWith(".deb")) continue;
    await new Deno.Command("dpkg-deb", { args: ["-x", `${dir}/${name}`, root] }).output();
  }
  return true;
}

async function fileNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) if (entry.isFile) names.push(entry.name);
  } catch {
    return [];
  }
  return names.sort();
}

function decodeEntities(text: string): string {
  return text.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&nbsp;|&#160;/g, " ")
    .replace(/\s+/g, " ").trim();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
