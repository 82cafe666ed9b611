/**
 * Depth limit for client JSON (every structure: messages, tool parameters, metadata …),
 * checked right after parsing and before any validation or upstream call. Recursive code
 * further on (schema validation, conversion, JSON.stringify) would otherwise overflow the
 * stack on a body nested thousands of levels deep. The walk is iterative and linear.
 */
import { invalidRequest } from "../errors.ts";

export const JSON_MAX_DEPTH = 64;

function pathLabel(parts: readonly (string | number)[]): string {
  let out = "";
  for (const part of parts.slice(0, 6)) {
    out += typeof part === "number" ? `[${part}]` : `${out === "" ? "" : "."}${part.slice(0, 64)}`;
  }
  return parts.length > 6 ? `${out}…` : out;
}

/**
 * Throws 400 `invalid_request` naming the field where `value` nests deeper than the limit.
 * Every request body passes here, so the walk keeps no paths: only objects and arrays are
 * visited, with their depth (a body of a few hundred values used to allocate an object and a
 * path copy per value). Only a body that is too deep is walked again with paths, in the same
 * order, so the error names the same field.
 */
export function checkJsonDepth(value: unknown, maxDepth = JSON_MAX_DEPTH): void {
  if (nestsDeeper(value, maxDepth)) throwAtDepth(value, maxDepth);
}

/**
 * True when some object or array in `value` sits at depth `maxDepth` or more (root: 0). It
 * recurses, at most `maxDepth` frames deep (it stops there), and allocates nothing: no node
 * stack, no `Object.values` array per object.
 */
function nestsDeeper(value: unknown, maxDepth: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  return deeperThan(value, maxDepth);
}

/** `node`, an object or array, has `left` levels of room (itself included) or fewer. */
function deeperThan(node: object, left: number): boolean {
  if (left <= 0) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === "object" && child !== null && deeperThan(child, left - 1)) return true;
    }
    return false;
  }
  // A parsed body's objects are plain: `for … in` visits exactly their own keys.
  for (const key in node) {
    const child: unknown = (node as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null && deeperThan(child, left - 1)) return true;
  }
  return false;
}

/** The walk with paths: throws at the first node (in stack order) past the limit. */
function throwAtDepth(value: unknown, maxDepth: number): void {
  const stack: Array<{ value: unknown; path: (string | number)[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (path.length >= maxDepth) {
      const field = pathLabel(path.slice(0, 3));
      throw invalidRequest(
        `The field '${field}' nests deeper than ${maxDepth} levels (at '${pathLabel(path)}').`,
        field,
      );
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) stack.push({ value: node[i], path: [...path, i] });
    } else {
      for (const key of Object.keys(node)) {
        stack.push({ value: (node as Record<string, unknown>)[key], path: [...path, key] });
      }
    }
  }
}
