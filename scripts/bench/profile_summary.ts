/**
 * Summarises a V8 `.cpuprofile` (from `deno run --cpu-prof`, or `deno task bench --cpu-prof
 * DIR`): self time by function and by source file, and inclusive time for the project's own
 * files, so "where does the time go" has an answer without a browser.
 *
 *   deno run -A scripts/bench/profile_summary.ts FILE.cpuprofile [--top 25] [--busy]
 *
 * `--busy` gives every share as one of the time the thread was not idle.
 */
import { parseArgs } from "node:util";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  /** Sampled time the thread was not idle (what the shares below are of, with `--busy`). */
  busyMs: number;
  /**
   * Self time by area: a native op or V8 bucket by name, `src/<dir>` for the project's code,
   * `npm:<package>`, `ext:<extension>` for Deno's own JavaScript.
   */
  selfByArea: Array<[string, number]>;
  /** [label, ms] sorted descending. */
  selfByFunction: Array<[string, number]>;
  selfByFile: Array<[string, number]>;
  /** Time with a frame of the file anywhere on the stack (counted once per sample). */
  inclusiveByFile: Array<[string, number]>;
}

/** This checkout's root as profiles name it (`file:///…/`), whatever the worktree is called. */
const ROOT = new URL("../../", import.meta.url).href;

function shortUrl(url: string): string {
  if (url === "") return "(native)";
  if (url.startsWith(ROOT)) return url.slice(ROOT.length);
  const src = url.indexOf("/main/");
  if (src >= 0) return url.slice(src + 6);
  const npm = url.match(/node_modules\/\.deno\/([^/]+)\//) ??
    url.match(/npm\/[^/]+\/([^/]+\/[^/]+)\//);
  if (npm?.[1]) return `npm:${npm[1]}`;
  return url.replace(/^.*\/ext\//, "ext:");
}

const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);

/** The area a sample's own frame belongs to (ProfileSummary `selfByArea`). */
export function areaOf(file: string, functionName: string): string {
  if (file === "(native)") return functionName || "(native)";
  if (file.startsWith("src/")) return file.split("/").slice(0, 2).join("/").replace(/\.ts$/, "");
  if (file.startsWith("npm:")) return file.replace(/\/[^/]*$/, "");
  if (file.startsWith("ext:")) return file.split("/")[0]!;
  return file;
}

export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const selfFn = new Map<string, number>();
  const selfFile = new Map<string, number>();
  const inclFile = new Map<string, number>();
  const selfArea = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    total += ms;
    const node = byId.get(id);
    if (!node) return;
    const file = shortUrl(node.callFrame.url);
    const fn = `${node.callFrame.functionName || "(anonymous)"} ${file}:${
      node.callFrame.lineNumber + 1
    }`;
    selfFn.set(fn, (selfFn.get(fn) ?? 0) + ms);
    selfFile.set(file, (selfFile.get(file) ?? 0) + ms);
    if (node.callFrame.functionName === "(idle)") idle += ms;
    else {
      const area = areaOf(file, node.callFrame.functionName);
      selfArea.set(area, (selfArea.get(area) ?? 0) + ms);
    }
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (!frame) break;
      const f = shortUrl(frame.callFrame.url);
      if (!seen.has(f)) {
        seen.add(f);
        inclFile.set(f, (inclFile.get(f) ?? 0) + ms);
      }
    }
  });
  return {
    totalMs: total,
    busyMs: total - idle,
    selfByArea: sorted(selfArea),
    selfByFunction: sorted(selfFn),
    selfByFile: sorted(selfFile),
    inclusiveByFile: sorted(inclFile),
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { top: { type: "string", default: "25" }, busy: { type: "boolean", default: false } },
  });
  const file = positionals[0];
  if (file === undefined) {
    console.error("Usage: profile_summary.ts FILE.cpuprofile [--top N]");
    Deno.exit(2);
  }
  const summary = summariseProfile(JSON.parse(await Deno.readTextFile(file)) as CpuProfile);
  const top = Number(values.top);
  // `--busy`: shares of the time the thread was not idle (a long run is mostly waiting).
  const base = values.busy ? summary.busyMs : summary.totalMs;
  const pct = (ms: number) => `${((ms / base) * 100).toFixed(1).padStart(5)} %`;
  const print = (title: string, rows: Array<[string, number]>, filter = (_: string) => true) => {
    console.log(`\n## ${title}`);
    for (const [label, ms] of rows.filter(([l]) => filter(l)).slice(0, top)) {
      console.log(`${pct(ms)}  ${ms.toFixed(0).padStart(7)} ms  ${label}`);
    }
  };
  console.log(
    `total sampled: ${summary.totalMs.toFixed(0)} ms, busy ${summary.busyMs.toFixed(0)} ms` +
      (values.busy ? " (shares below: of busy)" : ""),
  );
  print("self time by area", summary.selfByArea);
  print("self time by file", summary.selfByFile);
  print("self time by function", summary.selfByFunction);
  print(
    "inclusive time, project and npm files",
    summary.inclusiveByFile,
    (l) => !l.startsWith("ext:") && !l.startsWith("("),
  );
}
