/**
 * One HTTP listener of the process: `Deno.serve` itself, no code of ours between the socket
 * and hyper's HTTP parser (docs/reliability.md, "Connections" compares this with `node:http`
 * and with a relay). What it adds is survival: an accept error such as EMFILE ends a
 * `Deno.serve` server in Deno 2.9.6 (its `finished` rejects and the listening socket closes),
 * so the listener is started again on the same port, after a pause while descriptors are short.
 * Connection-level limits (header, idle and connection ceilings) are the front proxy's
 * (`deploy/nginx.conf`); request-level ones (the body deadline) the handler's.
 */
import { errorMessage, type Logger } from "../log.ts";
import { delay } from "../util/async.ts";

type Handler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

export interface Listener {
  addr: Deno.NetAddr;
  /** Stops accepting; resolves once every request in flight (streams included) has ended. */
  shutdown(): Promise<void>;
}

/** Pause between two attempts to listen again while descriptors are short. */
const RESTART_PAUSE_MS = 100;
/** At most one warning per this many ms while the listener keeps failing. */
const WARN_EVERY_MS = 10_000;

export function serveListener(
  options: {
    hostname: string;
    port: number;
    /** `SO_REUSEPORT`: other isolates (`SOVRA_WORKERS`) listen on the same port. */
    reusePort?: boolean;
    log: Logger;
  },
  handler: Handler,
): Listener {
  const { log } = options;
  let closing = false;
  let lastWarn = -Infinity;
  const start = (port: number) =>
    Deno.serve({
      hostname: options.hostname,
      port,
      ...(options.reusePort ? { reusePort: true } : {}),
      onListen: () => {},
    }, handler);
  let server = start(options.port);
  const addr = server.addr;
  // Servers that failed but still finish their requests in flight: shutdown waits for them.
  const failed = new Set<Deno.HttpServer<Deno.NetAddr>>();

  const warn = (msg: string, error: unknown) => {
    if (performance.now() - lastWarn < WARN_EVERY_MS) return;
    lastWarn = performance.now();
    log.warn(msg, { reason: errorMessage(error), port: addr.port });
  };

  const watch = (current: Deno.HttpServer<Deno.NetAddr>) => {
    current.finished.catch(async (error) => {
      if (closing) return;
      failed.add(current);
      warn("http listener failed (accept error); listening again", error);
      while (!closing) {
        await delay(RESTART_PAUSE_MS);
        if (closing) return;
        try {
          server = start(addr.port);
          watch(server);
          return;
        } catch (retry) {
          warn("listening again failed; retrying", retry);
        }
      }
    });
  };
  watch(server);

  return {
    addr,
    async shutdown() {
      closing = true;
      await Promise.all([
        server.shutdown().catch(() => {}),
        ...[...failed].map((s) => s.shutdown().catch(() => {})),
      ]);
    },
  };
}
