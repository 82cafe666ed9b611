/** Reading response bodies and chat SSE in tests: one copy for every suite. */
import assert from "node:assert/strict";

export interface BodyRead {
  /** Everything received before the end or the break. */
  text: string;
  /** True when the body ended cleanly, false when reading failed (dropped connection). */
  clean: boolean;
}

/** Reads a whole response body, recording whether it ended cleanly or broke off. */
export async function readToEnd(res: Response): Promise<BodyRead> {
  assert.ok(res.body, "response has no body");
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, clean: false };
  } finally {
    reader.releaseLock();
  }
  return { text, clean: true };
}

/**
 * Splits SSE text into the data payloads of its events. Asserts the spec's framing: every
 * event is exactly one `data: <payload>` line followed by a blank line. An incomplete last
 * event (cut connection) is ignored.
 */
export function sseData(text: string): string[] {
  const parts = text.split("\n\n");
  parts.pop(); // after the last separator: empty, or an event cut off mid-way
  return parts.map((event) => {
    assert.ok(event.startsWith("data: "), `event must be 'data: …', got ${event.slice(0, 120)}`);
    assert.ok(!event.includes("\n"), `event must be one line, got ${event.slice(0, 120)}`);
    return event.slice("data: ".length);
  });
}
