/**
 * A steady load of chat requests against a gateway (half of them streamed), each on a
 * connection of its own so the kernel spreads them over the isolates, recording what every
 * answered request's client saw: its id, status and the usage it was told. For fault tests
 * (a database stopped, a KV file locked, a process killed) that check afterwards that every
 * answered request is billed at its real cost.
 */
export interface Answered {
  id: string;
  status: number;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
}

export interface Load {
  /** Stops the clients after their current request; resolves with every answer. */
  stop(): Promise<Answered[]>;
  /** Answers so far. */
  readonly answered: Answered[];
  /** Requests that failed or took longer than the deadline (an error per request). */
  readonly failures: string[];
}

export function startLoad(
  url: string,
  key: string,
  options: { clients?: number; model?: string; deadlineMs?: number } = {},
): Load {
  const answered: Answered[] = [];
  const failures: string[] = [];
  let stopping = false;
  let n = 0;
  const one = async (stream: boolean) => {
    const client = Deno.createHttpClient({});
    const started = performance.now();
    try {
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        client,
        signal: AbortSignal.timeout(options.deadlineMs ?? 30_000),
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: options.model ?? "acme/chat",
          messages: [{ role: "user", content: `question ${n++}` }],
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        }),
      });
      const id = res.headers.get("x-request-id") ?? "";
      const text = await res.text();
      if (res.status !== 200) {
        failures.push(`${res.status} ${text.slice(0, 200)}`);
        return;
      }
      const usage = stream ? streamUsage(text) : JSON.parse(text).usage;
      answered.push({
        id,
        status: res.status,
        stream,
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
      });
    } catch (error) {
      failures.push(
        `${(error as Error).name} after ${Math.round(performance.now() - started)} ms: ${
          (error as Error).message
        }`,
      );
    } finally {
      client.close();
    }
  };
  const clients = Array.from({ length: options.clients ?? 4 }, async (_, c) => {
    for (let i = 0; !stopping; i++) await one((c + i) % 2 === 1);
  });
  return {
    answered,
    failures,
    async stop() {
      stopping = true;
      await Promise.all(clients);
      return answered;
    },
  };
}

/** The `usage` of a chat stream's last chunk that has one. */
function streamUsage(text: string): { prompt_tokens: number; completion_tokens: number } {
  let usage;
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const chunk = JSON.parse(line.slice(6));
    if (chunk.usage) usage = chunk.usage;
  }
  if (!usage) throw new Error("stream without usage");
  return usage;
}
