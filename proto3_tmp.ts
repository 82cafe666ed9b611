import process from "node:process";
import { textPass } from "./src/guardrail/text_pass.ts";
import { committedModel } from "./src/guardrail/model.ts";
import { blockSums } from "./src/guardrail/ngram_model.ts";
import { normalizeText } from "./src/guardrail/normalize.ts";
import { VerdictCache } from "./src/guardrail/verdict_cache.ts";
import { matchRules } from "./src/guardrail/rules/index.ts";
import { decodeViews } from "./src/guardrail/decode.ts";
import { buildRows } from "./scripts/guardrail/dataset.ts";
import { isHeldOut } from "./scripts/guardrail/rows.ts";
const { rows } = await buildRows({ shared: "../shared", cache: "data/guardrail" });
const kind = Deno.args[0] ?? "hard";
const pool = rows.filter((r) =>
  r.label === 0 && (kind === "hard" ? r.kind === "hard" : isHeldOut(r.text))
).map((r) => r.text).join("\n").repeat(3);
const raws: string[] = [];
for (let i = 0; i + 2048 < pool.length && raws.length < 1000; i += 2048) {
  raws.push(pool.slice(i, i + 2048));
}
const units = raws.map((r) => normalizeText(r).text);
const model = committedModel();
const passes = units.map((u) => textPass(u, model.quantised));
const cache = new VerdictCache();
const now = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const tests: Record<string, (i: number) => unknown> = {
  normalize: (i) => normalizeText(raws[i]!),
  key: (i) => cache.key("v", "user", raws[i]!),
  passFull: (i) => textPass(units[i]!, model.quantised),
  passAnchorsOnly: (i) => textPass(units[i]!, null),
  blockSums: (i) => blockSums(model.quantised, units[i]!),
  rules: (i) => matchRules(units[i]!, "user", passes[i]!.anchors),
  decode: (i) => decodeViews(raws[i]!, units[i]!, passes[i]!.anchors),
};
const best: Record<string, number> = {};
for (let round = 0; round < 25; round++) {
  for (const [name, fn] of Object.entries(tests)) {
    const t = now();
    for (let i = 0; i < units.length; i++) fn(i);
    const took = (now() - t) * 16 / units.length * 1000;
    best[name] = Math.min(best[name] ?? Infinity, took);
  }
}
console.log(
  kind,
  Object.entries(best).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", "),
  "µs per 32 KB",
);
