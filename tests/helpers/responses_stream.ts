/**
 * Checks a Responses SSE stream the way a strict client would: event framing, `sequence_number`
 * 0, 1, 2 …, lifecycle order, append-only output indexes, balanced added/done pairs for items
 * and content parts, deltas that add up to their `done` values, and a terminal response whose
 * `output` equals the items as they were closed.
 */
import assert from "node:assert/strict";

export interface StreamEvent {
  type: string;
  sequence_number: number;
  [key: string]: unknown;
}

export interface ValidatedStream {
  events: StreamEvent[];
  /** The `response` of the terminal event. */
  response: Record<string, unknown> & { status: string; output: unknown[] };
  terminal: "response.completed" | "response.failed";
}

interface OpenItem {
  id: string;
  type: string;
  parts: Array<{ type: string; text: string; open: boolean }>;
  arguments: string;
  argumentsDone: boolean;
}

/** Splits SSE text into events, checking that each `event:` name matches its data's `type`. */
export function parseSse(text: string): StreamEvent[] {
  assert.ok(text.endsWith("\n\n"), "stream ends with a blank line");
  const events: StreamEvent[] = [];
  for (const block of text.slice(0, -2).split("\n\n")) {
    const lines = block.split("\n");
    assert.equal(lines.length, 2, `two lines per event: ${block.slice(0, 80)}`);
    const [eventLine = "", dataLine = ""] = lines;
    assert.ok(eventLine.startsWith("event: ") && dataLine.startsWith("data: "));
    const data = JSON.parse(dataLine.slice(6)) as StreamEvent;
    assert.equal(data.type, eventLine.slice(7), "event name matches data.type");
    events.push(data);
  }
  return events;
}

export function validateResponsesStream(text: string): ValidatedStream {
  const events = parseSse(text);
  assert.ok(events.length >= 3, "at least created, in_progress and a terminal event");
  events.forEach((e, i) => assert.equal(e.sequence_number, i, `sequence_number of event ${i}`));
  assert.equal(events[0]?.type, "response.created");
  assert.equal(events[1]?.type, "response.in_progress");
  const open = new Map<number, OpenItem>();
  const closed: unknown[] = [];
  const ids = new Set<string>();
  let outputCount = 0;

  const item = (e: StreamEvent): OpenItem => {
    const found = open.get(e.output_index as number);
    assert.ok(found, `${e.type} #${e.sequence_number} refers to an open item`);
    if ("item_id" in e) assert.equal(e.item_id, found.id, `${e.type} item_id`);
    return found;
  };
  const part = (e: StreamEvent, type: string) => {
    const p = item(e).parts[e.content_index as number];
    assert.ok(p?.open, `${e.type} #${e.sequence_number} refers to an open content part`);
    assert.equal(p.type, type);
    return p;
  };

  for (const e of events.slice(2, -1)) {
    switch (e.type) {
      case "response.output_item.added": {
        const it = e.item as { id: string; type: string; status: string; arguments?: string };
        assert.equal(e.output_index, outputCount++, "output_index appends");
        assert.ok(!ids.has(it.id), `item id ${it.id} is unique`);
        assert.equal(it.status, "in_progress");
        ids.add(it.id);
        open.set(e.output_index, {
          id: it.id,
          type: it.type,
          parts: [],
          arguments: "",
          argumentsDone: false,
        });
        break;
      }
      case "response.content_part.added": {
        const it = item(e);
        const p = e.part as { type: string; text: string };
        assert.equal(e.content_index, it.parts.length, "content_index appends");
        assert.equal(p.text, "");
        assert.equal(p.type, it.type === "message" ? "output_text" : "reasoning_text");
        it.parts.push({ type: p.type, text: "", open: true });
        break;
      }
      case "response.output_text.delta":
        part(e, "output_text").text += e.delta as string;
        break;
      case "response.reasoning_text.delta":
        part(e, "reasoning_text").text += e.delta as string;
        break;
      case "response.output_text.done":
        assert.equal(e.text, part(e, "output_text").text, "output_text.done text");
        break;
      case "response.reasoning_text.done":
        assert.equal(e.text, part(e, "reasoning_text").text, "reasoning_text.done text");
        break;
      case "response.content_part.done": {
        const p = e.part as { type: string; text: string };
        const current = part(e, p.type);
        assert.equal(p.text, current.text, "content_part.done text");
        current.open = false;
        break;
      }
      case "response.function_call_arguments.delta": {
        const it = item(e);
        assert.equal(it.type, "function_call");
        assert.ok(!it.argumentsDone);
        it.arguments += e.delta as string;
        break;
      }
      case "response.function_call_arguments.done": {
        const it = item(e);
        assert.equal(e.arguments, it.arguments, "function_call_arguments.done arguments");
        it.argumentsDone = true;
        break;
      }
      case "response.output_item.done": {
        const it = item(e);
        const done = e.item as Record<string, unknown>;
        assert.equal(done.id, it.id);
        assert.equal(done.type, it.type);
        assert.ok(it.parts.every((p) => !p.open), "content parts closed before their item");
        if (it.type === "function_call") {
          assert.ok(it.argumentsDone, "function_call_arguments.done before output_item.done");
          assert.equal(done.arguments, it.arguments);
        }
        if (it.type === "message") {
          const texts = (done.content as Array<{ text: string }>).map((c) => c.text);
          assert.deepEqual(texts, it.parts.map((p) => p.text));
        }
        open.delete(e.output_index as number);
        closed[e.output_index as number] = done;
        break;
      }
      default:
        assert.fail(`unexpected event ${e.type} at #${e.sequence_number}`);
    }
  }
  assert.equal(open.size, 0, "every added item is done before the terminal event");
  const last = events.at(-1)!;
  assert.ok(last.type === "response.completed" || last.type === "response.failed", last.type);
  const response = last.response as ValidatedStream["response"];
  assert.deepEqual(response.output, closed, "terminal output equals the closed items");
  if (last.type === "response.failed") {
    assert.equal(response.status, "failed");
    const error = response.error as { code: string; message: string };
    assert.equal(typeof error.code, "string");
    assert.equal(typeof error.message, "string");
  } else {
    assert.ok(response.status === "completed" || response.status === "incomplete");
  }
  return { events, response, terminal: last.type };
}

/** Asserts the terminal response carries complete usage numbers and returns them. */
export function assertUsage(response: ValidatedStream["response"]) {
  const usage = response.usage as Record<string, number> | undefined;
  assert.ok(usage, "terminal response carries usage");
  for (const key of ["input_tokens", "output_tokens", "total_tokens"]) {
    assert.equal(typeof usage[key], "number", key);
  }
  return usage;
}
