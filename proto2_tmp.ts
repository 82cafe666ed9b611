import { findAnchors, INDEX } from "./src/guardrail/rules/anchors.ts";
import { normalizeText } from "./src/guardrail/normalize.ts";
import { buildRows } from "./scripts/guardrail/dataset.ts";
const { rows } = await buildRows({ shared: "../shared", cache: "data/guardrail" });
const pool = rows.filter((r) => r.label === 0 && r.kind === "hard").map((r) => r.text).join("\n")
  .repeat(3);
const units: string[] = [];
for (let i = 0; i + 2048 < pool.length && units.length < 2000; i += 2048) {
  units.push(normalizeText(pool.slice(i, i + 2048)).text);
}
let totalNotes = 0, totalHits = 0, words = 0;
for (const u of units) {
  const a = findAnchors(u);
  for (const s of a.found) totalNotes += a.at[s]!.length;
}
console.log(
  "notes per 2KB",
  totalNotes / units.length,
  "slots per 2KB",
  units.reduce((s, u) => s + findAnchors(u).found.length, 0) / units.length,
);
const CLASS = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyz0123456789") CLASS[ch.charCodeAt(0)] = 1;
function lookupsOnly(text: string): number {
  const { present, stems } = INDEX;
  let hash = 0, wl = 0, hits = 0, shortHash = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (c < 128 && CLASS[c] === 1) {
      wl++;
      if (wl <= 5) {
        hash = (hash * 31 + c) | 0;
        if (wl === 2 || wl === 3) shortHash = hash;
        if (wl >= 4) {
          const key = ((hash & 0x7ffffff) << 3) | wl;
          if (present[key & 0xffff] === 1 && stems.get(key) !== undefined) hits++;
        }
      }
    } else if (wl !== 0) {
      if (wl === 2 || wl === 3) {
        const key = ((shortHash & 0x7ffffff) << 3) | wl;
        if (present[key & 0xffff] === 1 && stems.get(key) !== undefined) hits++;
      }
      hash = 0;
      wl = 0;
    }
  }
  return hits;
}
function scanOnly(text: string): number {
  let s = 0;
  for (let i = 0; i < text.length; i++) s += text.charCodeAt(i);
  return s;
}
import process from "node:process";
const now = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const best = [1e9, 1e9, 1e9];
for (let round = 0; round < 40; round++) {
  let t = now();
  for (const u of units) findAnchors(u);
  const a = now() - t;
  t = now();
  let h = 0;
  for (const u of units) h += lookupsOnly(u);
  const b = now() - t;
  t = now();
  for (const u of units) scanOnly(u);
  const c = now() - t;
  const per = 16 / units.length * 1000;
  best[0] = Math.min(best[0], a);
  best[1] = Math.min(best[1], b);
  best[2] = Math.min(best[2], c);
  if (round === 39) {
    console.log(
      `per 32KB: findAnchors ${(best[0] * per).toFixed(0)} µs, lookups ${
        (best[1] * per).toFixed(0)
      } µs (hits/2KB ${(h / units.length).toFixed(0)}), charCodeAt loop ${
        (best[2] * per).toFixed(0)
      }`,
    );
  }
}
