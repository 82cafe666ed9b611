/**
 * RouteLLM's labelled evaluation data, read in place from `../shared/data/routellm/` (never
 * copied into the project). Each item: the prompt the router sees, the strong and the weak
 * model's quality on it (MMLU/GSM8K: 1 correct, 0 wrong; MT-Bench: the GPT-4 judge score
 * averaged over both turns), and a group (MMLU subject) for held-out splits. RouteLLM's own
 * contaminated prompts are dropped, as its evaluation does.
 */
import { parse } from "csv-parse/sync";

export const STRONG = "gpt-4-1106-preview";
export const WEAK = "mistralai/Mixtral-8x7B-Instruct-v0.1";

export interface Item {
  prompt: string;
  strong: number;
  weak: number;
  group: string;
}

export type DataSetName = "mmlu" | "gsm8k" | "mt_bench";

export function dataDir(): URL {
  const override = Deno.env.get("SOVRA_ROUTELLM_DIR");
  if (override) return new URL(`file://${override.endsWith("/") ? override : override + "/"}`);
  return new URL("../../../shared/data/routellm/", import.meta.url);
}

async function contaminated(dir: URL, name: string): Promise<Set<string>> {
  const text = await Deno.readTextFile(new URL(`${name}/contaminated_prompts.jsonl`, dir));
  const set = new Set<string>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    set.add(String(JSON.parse(line).eval_prompt).trim());
  }
  return set;
}

function bool(v: string | undefined): number {
  return v === "True" || v === "true" ? 1 : 0;
}

async function csvItems(file: URL, group: string, skip: Set<string>): Promise<Item[]> {
  const rows = parse(await Deno.readTextFile(file), { columns: true }) as Record<string, string>[];
  return rows
    .filter((r) => !skip.has((r.prompt ?? "").trim()))
    .map((r) => ({ prompt: r.prompt ?? "", strong: bool(r[STRONG]), weak: bool(r[WEAK]), group }));
}

export async function loadMmlu(dir = dataDir()): Promise<Item[]> {
  const skip = await contaminated(dir, "mmlu");
  const items: Item[] = [];
  const folder = new URL("mmlu/responses/", dir);
  const names = [];
  for await (const e of Deno.readDir(folder)) if (e.name.endsWith(".csv")) names.push(e.name);
  names.sort();
  for (const name of names) {
    const subject = name.replace(/^mmlu_/, "").replace(/\.csv$/, "");
    items.push(...await csvItems(new URL(name, folder), subject, skip));
  }
  return items;
}

export async function loadGsm8k(dir = dataDir()): Promise<Item[]> {
  const skip = await contaminated(dir, "gsm8k");
  return csvItems(new URL("gsm8k/gsm8k_responses.csv", dir), "gsm8k", skip);
}

export async function loadMtBench(dir = dataDir()): Promise<Item[]> {
  const skip = await contaminated(dir, "mt_bench");
  const questions = new Map<number, { prompt: string; category: string }>();
  for (
    const line of (await Deno.readTextFile(new URL("mt_bench/question.jsonl", dir))).split("\n")
  ) {
    if (!line.trim()) continue;
    const q = JSON.parse(line);
    questions.set(q.question_id, { prompt: String(q.turns[0]), category: String(q.category) });
  }
  const scores = new Map<string, number[]>();
  for (
    const line of (await Deno.readTextFile(new URL("mt_bench/judgements.jsonl", dir))).split("\n")
  ) {
    if (!line.trim()) continue;
    const j = JSON.parse(line);
    if (typeof j.score !== "number" || j.score < 0) continue;
    const key = `${j.question_id}|${j.model}`;
    scores.set(key, [...(scores.get(key) ?? []), j.score]);
  }
  const mean = (xs: number[] | undefined) =>
    xs && xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
  const items: Item[] = [];
  for (const [id, q] of [...questions].sort((a, b) => a[0] - b[0])) {
    if (skip.has(q.prompt.trim())) continue;
    const strong = mean(scores.get(`${id}|${STRONG}`));
    const weak = mean(scores.get(`${id}|${WEAK}`));
    if (strong === undefined || weak === undefined) continue;
    items.push({ prompt: q.prompt, strong, weak, group: q.category });
  }
  return items;
}

export async function loadAll(dir = dataDir()): Promise<Record<DataSetName, Item[]>> {
  return {
    mmlu: await loadMmlu(dir),
    gsm8k: await loadGsm8k(dir),
    mt_bench: await loadMtBench(dir),
  };
}

/** False (with the reason on stderr) when the data is not beside the project. */
export async function dataPresent(dir = dataDir()): Promise<boolean> {
  try {
    await Deno.stat(new URL("mmlu/responses/", dir));
    return true;
  } catch {
    return false;
  }
}
