/** JSON text from an upstream, or undefined when it is not JSON (error bodies, HTML pages). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
