/**
 * The HTTP client every upstream call goes through: Deno's fetch with a pool whose idle
 * connections close after `idleMs` (`SOVRA_UPSTREAM_IDLE_MS`). Deno 2.9.6's default client keeps
 * an idle connection until the provider closes it: after a burst of 300 streams, 167 sockets
 * were still open ~170 s later, each a descriptor and a provider-side slot.
 */
export interface UpstreamClient {
  fetch: typeof fetch;
  close(): void;
}

export function upstreamClient(idleMs: number): UpstreamClient {
  const client = Deno.createHttpClient({ poolIdleTimeout: idleMs });
  return {
    fetch: (input, init) => fetch(input, { ...init, client }),
    close: () => client.close(),
  };
}
