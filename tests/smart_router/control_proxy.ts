/**
 * A controllable upstream for router tests: a real HTTP server on 127.0.0.1 that forwards to
 * the openai-dialect simulator, and can be told, while the test runs, to answer slowly or to
 * fail with a status (then told to recover). The simulator's own fault controls are fixed per
 * upstream model name; this one changes over time.
 */
export interface ControlProxy {
  /** Base URL ending in `/v1`. */
  url: string;
  delayMs: number;
  /** Answer this status instead of forwarding (undefined: forward). */
  failStatus: number | undefined;
  /** Requests that reached this proxy. */
  hits: number;
  close(): Promise<void>;
}

export function startControlProxy(simUrl: string): ControlProxy {
  const state = {
    delayMs: 0,
    failStatus: undefined as number | undefined,
    hits: 0,
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    state.hits++;
    if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
    if (state.failStatus !== undefined) {
      return Response.json(
        { error: { message: "proxy failure", type: "server_error", code: null } },
        { status: state.failStatus },
      );
    }
    const path = new URL(req.url).pathname.replace(/^\/v1/, "");
    const upstream = await fetch(`${simUrl}${path}`, {
      method: req.method,
      headers: req.headers,
      body: await req.arrayBuffer(),
    });
    return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
  });
  const addr = server.addr as Deno.NetAddr;
  return Object.assign(state, {
    url: `http://127.0.0.1:${addr.port}/v1`,
    close: () => server.shutdown(),
  }) as ControlProxy;
}
