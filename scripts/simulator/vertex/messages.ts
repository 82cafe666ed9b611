/** Anthropic Messages body → the simulators' neutral view; plan → Messages JSON and SSE events. */
import type { AnswerPlan, SimBlock, SimRequest } from "../bedrock/conversation.ts";

type Json = Record<string, unknown>;

export function readMessagesRequest(body: Json): SimRequest {
  const messages = Array.isArray(body.messages) ? body.messages as Json[] : [];
  const tools = (Array.isArray(body.tools) ? body.tools as Json[] : []).map((t) => ({
    name: String(t.name),
    schema: t.input_schema,
  }));
  const tc = body.tool_choice as Json | undefined;
  const choice: SimRequest["choice"] = tc?.type === "any"
    ? { type: "any" }
    : tc?.type === "tool"
    ? { type: "tool", name: String(tc.name) }
    : tc?.type === "none"
    ? { type: "none" }
    : { type: "auto" };
  const thinking = body.thinking as Json | undefined;
  const system = typeof body.system === "string"
    ? [body.system]
    : (Array.isArray(body.system) ? body.system as Json[] : []).map((s) => String(s.text ?? ""));
  return {
    system,
    turns: messages.map((m) => ({
      role: String(m.role),
      blocks: typeof m.content === "string"
        ? [{ kind: "text" as const, text: m.content }]
        : (Array.isArray(m.content) ? m.content as Json[] : []).map(readBlock),
    })),
    tools,
    choice,
    thinking: thinking?.type === "enabled" ? { budget: Number(thinking.budget_tokens) } : undefined,
    maxTokens: typeof body.max_tokens === "number" ? body.max_tokens : undefined,
    cachePoints: cachePointsIn(body),
  };
}

/**
 * The blocks marked `cache_control` in prompt order (tools, system, messages), each with the
 * content up to and including it (blocks without their markers, a message's with its role).
 */
function cachePointsIn(body: Json): SimRequest["cachePoints"] {
  const points: SimRequest["cachePoints"] = [];
  let prefix = "";
  const walk = (blocks: unknown, tag: string) => {
    const list = typeof blocks === "string"
      ? [{ type: "text", text: blocks }]
      : Array.isArray(blocks)
      ? blocks as Json[]
      : [];
    for (const block of list) {
      const { cache_control: control, ...content } = block;
      prefix += `${tag}:${JSON.stringify(content)}\n`;
      if (control !== undefined && control !== null) {
        points.push({ prefix, ttl: (control as Json).ttl ?? "5m" });
      }
    }
  };
  walk(body.tools, "tool");
  walk(body.system, "system");
  for (const m of Array.isArray(body.messages) ? body.messages as Json[] : []) {
    walk(m.content, String(m.role));
  }
  return points;
}

function readBlock(block: Json): SimBlock {
  switch (block.type) {
    case "text":
      return { kind: "text", text: String(block.text ?? "") };
    case "tool_use":
      return {
        kind: "tool_use",
        id: String(block.id),
        name: String(block.name),
        input: block.input,
      };
    case "tool_result": {
      const content = block.content;
      const text = typeof content === "string"
        ? content
        : (Array.isArray(content) ? content as Json[] : []).map((c) => String(c.text ?? "")).join(
          "",
        );
      return { kind: "tool_result", id: String(block.tool_use_id), text };
    }
    case "thinking":
      return {
        kind: "thinking",
        text: String(block.thinking ?? ""),
        signature: String(block.signature ?? ""),
      };
    case "redacted_thinking":
      return { kind: "redacted", data: String(block.data ?? "") };
    default:
      return { kind: "other" };
  }
}

/** Usage; the writes by TTL (`cache_creation`) where the request marked cache breakpoints. */
function usageOf(plan: AnswerPlan): Json {
  const write = plan.usage.cacheWrite ?? 0;
  const write1h = plan.usage.cacheWrite1h;
  return {
    input_tokens: plan.usage.input,
    output_tokens: plan.usage.output,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: plan.usage.cacheRead ?? 0,
    ...(write1h === undefined ? {} : {
      cache_creation: {
        ephemeral_5m_input_tokens: write - write1h,
        ephemeral_1h_input_tokens: write1h,
      },
    }),
  };
}

export function messagesUsage(plan: AnswerPlan): Json {
  return usageOf(plan);
}

function contentOf(plan: AnswerPlan): Json[] {
  return plan.blocks.map((b) => {
    switch (b.kind) {
      case "thinking":
        return { type: "thinking", thinking: b.pieces.join(""), signature: b.signature };
      case "redacted":
        return { type: "redacted_thinking", data: b.data };
      case "text":
        return { type: "text", text: b.pieces.join("") };
      case "tool":
        return { type: "tool_use", id: b.id, name: b.name, input: b.input };
    }
  });
}

export function messagesResponse(plan: AnswerPlan, model: string, noUsage: boolean): Json {
  return {
    id: `msg_vrtx_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`,
    type: "message",
    role: "assistant",
    model,
    content: contentOf(plan),
    stop_reason: plan.stopReason,
    stop_sequence: null,
    ...(noUsage ? {} : { usage: usageOf(plan) }),
  };
}

/** SSE events of a plan, `[event name, data]`, in the order Anthropic sends them. */
export function messagesStreamEvents(
  plan: AnswerPlan,
  model: string,
  noUsage: boolean,
): Array<[string, Json]> {
  const usage = usageOf(plan);
  const events: Array<[string, Json]> = [[
    "message_start",
    {
      type: "message_start",
      message: {
        id: "msg_vrtx_stream",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        ...(noUsage ? {} : { usage: { ...usage, output_tokens: 1 } }),
      },
    },
  ], ["ping", { type: "ping" }]];
  plan.blocks.forEach((b, index) => {
    const start = (content_block: Json) =>
      events.push(["content_block_start", { type: "content_block_start", index, content_block }]);
    const delta = (d: Json) =>
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: d }]);
    switch (b.kind) {
      case "thinking":
        start({ type: "thinking", thinking: "" });
        for (const thinking of b.pieces) delta({ type: "thinking_delta", thinking });
        delta({ type: "signature_delta", signature: b.signature });
        break;
      case "redacted":
        start({ type: "redacted_thinking", data: b.data });
        break;
      case "text":
        start({ type: "text", text: "" });
        for (const text of b.pieces) delta({ type: "text_delta", text });
        break;
      case "tool":
        start({ type: "tool_use", id: b.id, name: b.name, input: {} });
        delta({ type: "input_json_delta", partial_json: "" });
        for (const partial_json of b.pieces) delta({ type: "input_json_delta", partial_json });
        break;
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: plan.stopReason, stop_sequence: null },
      ...(noUsage ? {} : { usage: { output_tokens: plan.usage.output } }),
    },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events;
}
