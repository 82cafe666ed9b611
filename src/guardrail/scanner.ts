/**
 * The request-level scan: the units a request puts in front of the model (user messages, tool
 * results), newest first, at most `maxScannedBytes` characters in all (a unit that no longer
 * fits is scanned by its head and tail; units past the budget are not scanned and the
 * verdict's coverage says `partial`), each unit's verdict cached. The request's verdict is the
 * strongest unit verdict; it names the earliest unit (in request order) with that verdict.
 */
import { committedModel } from "./model.ts";
import type { NgramModel } from "./ngram_model.ts";
import { type Action, type Channel, scanText, type TextVerdict } from "./scan_text.ts";
import { VerdictCache } from "./verdict_cache.ts";

export interface ScanUnit {
  /** Where the text is in the request: `messages[3]`, `input[2]`, `input`. */
  path: string;
  /** user, tool, function_call_output… */
  role: string;
  channel: Channel;
  text: string;
}

export interface GuardrailVerdict {
  action: Action;
  score: number;
  rule?: string;
  at?: string;
  role?: string;
  version: string;
  scannedBytes: number;
  coverage: "full" | "partial";
  tookUs: number;
}

export interface GuardrailOptions {
  model?: NgramModel;
  maxScannedBytes?: number;
  cacheEntries?: number;
}

const RANK: Record<Action, number> = { pass: 0, flag: 1, block: 2 };

export class Guardrail {
  readonly #model: NgramModel;
  readonly #cache: VerdictCache;
  readonly #maxScanned: number;

  constructor(options: GuardrailOptions = {}) {
    this.#model = options.model ?? committedModel();
    this.#cache = new VerdictCache(options.cacheEntries ?? 4096);
    this.#maxScanned = options.maxScannedBytes ?? 65_536;
  }

  get version(): string {
    return this.#model.manifest.version;
  }

  scan(units: readonly ScanUnit[]): GuardrailVerdict {
    const started = performance.now();
    let remaining = this.#maxScanned;
    let coverage: "full" | "partial" = "full";
    let best: { verdict: TextVerdict; index: number } | undefined;
    for (let index = units.length - 1; index >= 0; index--) {
      const unit = units[index]!;
      if (unit.text === "") continue;
      if (remaining <= 0) {
        coverage = "partial";
        break;
      }
      let text = unit.text;
      if (text.length > remaining) {
        const half = Math.floor((remaining - 1) / 2);
        text = `${text.slice(0, half)}\n${text.slice(text.length - half)}`;
        coverage = "partial";
      }
      remaining -= text.length;
      const verdict = this.#scanCached(text, unit.channel);
      if (
        best === undefined || RANK[verdict.action] > RANK[best.verdict.action] ||
        (RANK[verdict.action] === RANK[best.verdict.action] && verdict.action !== "pass")
      ) {
        best = { verdict, index };
      }
    }
    const scannedBytes = this.#maxScanned - remaining;
    const tookUs = Math.round((performance.now() - started) * 1000);
    const result: GuardrailVerdict = {
      action: best?.verdict.action ?? "pass",
      score: round(best?.verdict.score ?? 0),
      version: this.version,
      scannedBytes,
      coverage,
      tookUs,
    };
    if (best !== undefined && best.verdict.action !== "pass") {
      const unit = units[best.index]!;
      result.rule = best.verdict.rule!;
      result.at = unit.path;
      result.role = unit.role;
    }
    return result;
  }

  #scanCached(text: string, channel: Channel): TextVerdict {
    const key = this.#cache.key(this.version, channel, text);
    const known = this.#cache.get(key);
    if (known !== undefined) return known;
    const verdict = scanText(this.#model, text, channel);
    this.#cache.set(key, verdict);
    return verdict;
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
