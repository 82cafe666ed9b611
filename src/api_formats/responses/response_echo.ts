/** The request fields a Responses API `response` object echoes back. */
import type { ResponsesRequest } from "./request_schema.ts";
import type { ResponseEcho, WireFunctionTool, WireToolChoice } from "./response_object.ts";

const SUMMARIES = new Set(["auto", "concise", "detailed"]);

export function responseEcho(body: ResponsesRequest): ResponseEcho {
  const tools: WireFunctionTool[] = [];
  for (const tool of body.tools ?? []) {
    if (tool.type !== "function" || typeof tool.name !== "string") continue;
    tools.push({
      type: "function",
      name: tool.name,
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      parameters: isRecord(tool.parameters) ? tool.parameters : null,
      strict: typeof tool.strict === "boolean" ? tool.strict : null,
    });
  }
  const choice = body.tool_choice;
  let toolChoice: WireToolChoice = "auto";
  if (typeof choice === "string") toolChoice = choice;
  else if (choice?.type === "function" && typeof choice.name === "string") {
    toolChoice = { type: "function", name: choice.name };
  }
  const summary = body.reasoning?.summary;
  const echo: ResponseEcho = {
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: stringRecord(body.metadata),
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    reasoning: {
      effort: body.reasoning?.effort ?? null,
      summary: summary != null && SUMMARIES.has(summary)
        ? summary as "auto" | "concise" | "detailed"
        : null,
    },
    temperature: body.temperature ?? null,
    tool_choice: toolChoice,
    tools,
    top_p: body.top_p ?? null,
  };
  if (body.user != null) echo.user = body.user;
  return echo;
}

function stringRecord(value: Record<string, unknown> | null | undefined) {
  if (value === null || value === undefined) return null;
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === "string") out[key] = v;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
