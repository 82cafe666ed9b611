/** Converse request body → the simulators' neutral view; plan → Converse JSON and stream events. */
import type { AnswerPlan, SimBlock, SimRequest } from "./conversation.ts";

type Json = Record<string, unknown>;

export function readConverseRequest(body: Json): SimRequest {
  const messages = Array.isArray(body.messages) ? body.messages as Json[] : [];
  const toolConfig = (body.toolConfig ?? {}) as Json;
  const tools = (Array.isArray(toolConfig.tools) ? toolConfig.tools as Json[] : []).flatMap((t) => {
    const spec = t.toolSpec as Json | undefined;
    return spec
      ? [{ name: String(spec.name), schema: (spec.inputSchema as Json | undefined)?.json }]
      : [];
  });
  const tc = toolConfig.toolChoice as Json | undefined;
  const choice: SimRequest["choice"] = tc?.any
    ? { type: "any" }
    : tc?.tool
    ? { type: "tool", name: String((tc.tool as Json).name) }
    : { type: "auto" };
  const extra = (body.additionalModelRequestFields ?? {}) as Json;
  const thinking = extra.thinking as Json | undefined;
  const reasoningConfig = extra.reasoningConfig as Json | undefined;
  const inference = (body.inferenceConfig ?? {}) as Json;
  return {
    system: (Array.isArray(body.system) ? body.system as Json[] : []).map((s) =>
      String(s.text ?? "")
    ),
    turns: messages.map((m) => ({
      role: String(m.role),
      blocks: (Array.isArray(m.content) ? m.content as Json[] : []).map(readBlock),
    })),
    tools,
    choice,
    thinking: thinking?.type === "enabled"
      ? { budget: Number(thinking.budget_tokens) }
      : reasoningConfig?.type === "enabled"
      ? { budget: 1024 }
      : undefined,
    maxTokens: typeof inference.maxTokens === "number" ? inference.maxTokens : undefined,
    cachePoints: cachePointsIn(body),
  };
}

/**
 * The `cachePoint` blocks of a Converse body in prompt order (tool list, system, messages),
 * each with the content before it: blocks as sent, a message's with its role.
 */
function cachePointsIn(body: Json): SimRequest["cachePoints"] {
  const points: SimRequest["cachePoints"] = [];
  let prefix = "";
  const walk = (blocks: unknown, tag: string) => {
    for (const block of Array.isArray(blocks) ? blocks as Json[] : []) {
      const point = block.cachePoint as Json | undefined;
      if (point) points.push({ prefix, ttl: point.ttl ?? "5m" });
      else prefix += `${tag}:${JSON.stringify(block)}\n`;
    }
  };
  walk(((body.toolConfig ?? {}) as Json).tools, "tool");
  walk(body.system, "system");
  for (const m of Array.isArray(body.messages) ? body.messages as Json[] : []) {
    walk(m.content, String(m.role));
  }
  return points;
}

function readBlock(block: Json): SimBlock {
  if (typeof block.text === "string") return { kind: "text", text: block.text };
  const use = block.toolUse as Json | undefined;
  if (use) {
    return {
      kind: "tool_use",
      id: String(use.toolUseId),
      name: String(use.name),
      input: use.input,
    };
  }
  const result = block.toolResult as Json | undefined;
  if (result) {
    const content = Array.isArray(result.content) ? result.content as Json[] : [];
    return {
      kind: "tool_result",
      id: String(result.toolUseId),
      text: content.map((c) => String(c.text ?? "")).join(""),
    };
  }
  const reasoning = block.reasoningContent as Json | undefined;
  if (reasoning?.reasoningText) {
    const r = reasoning.reasoningText as Json;
    return { kind: "thinking", text: String(r.text ?? ""), signature: String(r.signature ?? "") };
  }
  if (typeof reasoning?.redactedContent === "string") {
    return { kind: "redacted", data: reasoning.redactedContent };
  }
  return { kind: "other" };
}

export function converseUsage(plan: AnswerPlan): Json {
  const { input, output, cacheRead, cacheWrite, cacheWrite1h } = plan.usage;
  const details = cacheWrite1h === undefined || !cacheWrite ? undefined : [
    { ttl: "5m", inputTokens: cacheWrite - cacheWrite1h },
    { ttl: "1h", inputTokens: cacheWrite1h },
  ].filter((d) => d.inputTokens > 0);
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output + (cacheRead ?? 0) + (cacheWrite ?? 0),
    ...(cacheRead === undefined ? {} : { cacheReadInputTokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWriteInputTokens: cacheWrite }),
    ...(details === undefined ? {} : { cacheDetails: details }),
  };
}

export function converseResponse(plan: AnswerPlan, noUsage: boolean): Json {
  const content = plan.blocks.map((b) => {
    switch (b.kind) {
      case "thinking":
        return {
          reasoningContent: { reasoningText: { text: b.pieces.join(""), signature: b.signature } },
        };
      case "redacted":
        return { reasoningContent: { redactedContent: b.data } };
      case "text":
        return { text: b.pieces.join("") };
      case "tool":
        return { toolUse: { toolUseId: b.id, name: b.name, input: b.input } };
    }
  });
  return {
    output: { message: { role: "assistant", content } },
    stopReason: plan.stopReason,
    ...(noUsage ? {} : { usage: converseUsage(plan) }),
    metrics: { latencyMs: 1 },
  };
}

/** The ConverseStream events of a plan, in order: [event type, payload]. */
export function converseStreamEvents(plan: AnswerPlan, noUsage: boolean): Array<[string, Json]> {
  const events: Array<[string, Json]> = [["messageStart", { role: "assistant" }]];
  plan.blocks.forEach((b, contentBlockIndex) => {
    switch (b.kind) {
      case "thinking":
        for (const text of b.pieces) {
          events.push(["contentBlockDelta", {
            contentBlockIndex,
            delta: { reasoningContent: { text } },
          }]);
        }
        events.push(["contentBlockDelta", {
          contentBlockIndex,
          delta: { reasoningContent: { signature: b.signature } },
        }]);
        break;
      case "redacted":
        events.push(["contentBlockDelta", {
          contentBlockIndex,
          delta: { reasoningContent: { redactedContent: b.data } },
        }]);
        break;
      case "text":
        for (const text of b.pieces) {
          events.push(["contentBlockDelta", {
            contentBlockIndex,
            delta: { text },
            p: "abcdefghijklmnop",
          }]);
        }
        break;
      case "tool":
        events.push(["contentBlockStart", {
          contentBlockIndex,
          start: { toolUse: { toolUseId: b.id, name: b.name } },
        }]);
        for (const input of b.pieces) {
          events.push(["contentBlockDelta", { contentBlockIndex, delta: { toolUse: { input } } }]);
        }
        break;
    }
    events.push(["contentBlockStop", { contentBlockIndex }]);
  });
  events.push(["messageStop", { stopReason: plan.stopReason }]);
  if (!noUsage) {
    events.push(["metadata", { usage: converseUsage(plan), metrics: { latencyMs: 1 } }]);
  }
  return events;
}
