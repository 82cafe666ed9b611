/**
 * The layering of `src/` (ARCHITECTURE.md): every import between top-level modules (a folder
 * of `src/`, or a file at its root; `.ts` and `.tsx` files alike) points to a strictly lower layer, and the module graph has
 * no cycle. A new folder must be placed in `LAYERS` (and in ARCHITECTURE.md) to pass.
 * Anchor: Deno std's `_tools/check_circular_package_dependencies.ts`.
 */
import assert from "node:assert/strict";

/** Bottom first. A module may import only modules of the layers before its own. */
const LAYERS: readonly (readonly string[])[] = [
  ["config", "util", "billed_endpoints", "billed_quantities"],
  ["log", "mail"],
  ["errors"],
  ["state", "canonical", "guardrail", "request_body"],
  ["limits", "auth", "catalog", "telemetry", "lifecycle"],
  ["providers", "billing", "smart_router", "accounts", "policy", "alerts"],
  ["routing", "dashboard"],
  ["pipeline", "api_formats", "admin"],
  ["deps"],
  ["http", "compose_deps"],
  ["app"],
  ["gateway"],
  ["workers"],
];

const SRC = new URL("../src/", import.meta.url);
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (/\.tsx?$/.test(entry.name)) yield url;
  }
}

/** `providers` for `src/providers/openai/http.ts`, `errors` for `src/errors.ts`. */
function moduleOf(file: URL): string {
  const rel = file.pathname.slice(SRC.pathname.length);
  const slash = rel.indexOf("/");
  return slash === -1 ? rel.replace(/\.tsx?$/, "") : rel.slice(0, slash);
}

/** Cross-module imports: `from → to → files`. */
async function moduleGraph(): Promise<Map<string, Map<string, string[]>>> {
  const graph = new Map<string, Map<string, string[]>>();
  for await (const file of sourceFiles(SRC)) {
    const from = moduleOf(file);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const match of (await Deno.readTextFile(file)).matchAll(IMPORT)) {
      const target = new URL(match[1]!, file);
      if (!target.pathname.startsWith(SRC.pathname)) continue;
      const to = moduleOf(target);
      if (to === from) continue;
      const files = graph.get(from)!.get(to) ?? [];
      files.push(file.pathname.slice(SRC.pathname.length));
      graph.get(from)!.set(to, files);
    }
  }
  return graph;
}

/** The modules on a cycle, if any (depth-first search for a back edge). */
function findCycle(graph: Map<string, Map<string, string[]>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

function layerOf(module: string): number {
  return LAYERS.findIndex((layer) => layer.includes(module));
}

Deno.test("src layering — every module is placed in a layer", async () => {
  const unplaced = [...(await moduleGraph()).keys()].filter((m) => layerOf(m) === -1);
  assert.deepEqual(unplaced, [], "add new folders to LAYERS here and in ARCHITECTURE.md");
});

Deno.test("src layering — no import points to the same or a higher layer", async () => {
  const upward: string[] = [];
  for (const [from, targets] of await moduleGraph()) {
    for (const [to, files] of targets) {
      if (layerOf(from) === -1 || layerOf(to) < layerOf(from)) continue;
      upward.push(`${from} → ${to} (${files.join(", ")})`);
    }
  }
  assert.deepEqual(upward, []);
});

Deno.test("src layering — the module graph has no cycle", async () => {
  assert.equal(findCycle(await moduleGraph())?.join(" → "), undefined);
});

Deno.test("findCycle — finds a cycle between folders, none in a chain", () => {
  const graph = (edges: [string, string][]) => {
    const g = new Map<string, Map<string, string[]>>();
    for (const [a, b] of edges) {
      if (!g.has(a)) g.set(a, new Map());
      g.get(a)!.set(b, []);
    }
    return g;
  };
  assert.deepEqual(findCycle(graph([["a", "b"], ["b", "c"], ["c", "a"]])), ["a", "b", "c", "a"]);
  assert.equal(findCycle(graph([["a", "b"], ["b", "c"], ["a", "c"]])), undefined);
});

Deno.test("src layering — the dashboard's .tsx pages are read too", async () => {
  const files = [...(await moduleGraph()).values()].flatMap((targets) => [...targets.values()]);
  assert.ok(files.flat().some((file) => file.endsWith(".tsx")), "no import read from a .tsx file");
});
