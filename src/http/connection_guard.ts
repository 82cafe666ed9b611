/**
 * The public listener in front of `Deno.serve`, which has no header, idle or connection
 * limits and whose server dies on an accept error such as EMFILE (deno.md §3.1). Every client
 * connection is accepted here and relayed byte for byte to the HTTP server on a loopback
 * port; the handler reports each request's start and end (`track`), so the guard knows when a
 * connection waits for headers or sits idle between requests:
 *
 * - headers: a connection must deliver a request's headers within `headerTimeoutMs` of its
 *   first byte (or of being accepted), or it is closed;
 * - keep-alive: a connection with no request in flight and no new bytes for `idleTimeoutMs` is
 *   closed; a request in flight is never cut here (streams have their own upstream watchdog,
 *   bodies the body deadline);
 * - ceiling: beyond `maxConnections` a new connection gets a 503 error object and is closed;
 * - accept errors (EMFILE, ENFILE …) are logged and retried after a pause, never fatal;
 * - HTTP-layer refusals of the server (malformed request line, bad Content-Length, oversized
 *   headers: an empty 4xx before any handler ran) are answered with the spec's error object.
 */
import { errorMessage, type Logger } from "../log.ts";
import { tickFor } from "../deadline_sweep.ts";
import { RelayBuffer } from "./relay_buffer.ts";

export interface GuardLimits {
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
}

export interface GuardedServer {
  addr: Deno.NetAddr;
  /** Connections open now (tests, metrics). */
  readonly open: number;
  shutdown(): Promise<void>;
}

type Handler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

interface ConnState {
  client: Deno.Conn;
  inner: Deno.TcpConn | undefined;
  innerPort: number;
  inFlight: number;
  /** Client bytes arrived for a request no handler has started yet. */
  awaitingHeaders: boolean;
  /** `performance.now()` at which the connection is closed for `why`; Infinity: no limit runs. */
  deadline: number;
  why: string;
  closed: boolean;
}

const encoder = new TextEncoder();

function errorResponseBytes(
  status: number,
  code: string,
  message: string,
): Uint8Array<ArrayBufferLike> {
  const body = JSON.stringify({ error: { message, type: "invalid_request_error", code } });
  const reason = status === 503
    ? "Service Unavailable"
    : status === 431
    ? "Request Header Fields Too Large"
    : "Bad Request";
  return encoder.encode(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\n` +
      `content-length: ${encoder.encode(body).length}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The default connection ceiling from the process's open-file limit: each client connection
 * holds up to 4 descriptors (client, relay, server side, upstream), 512 stay for the store,
 * the catalog and logs. Deno cannot raise its own limit (no setrlimit); raise it with
 * `ulimit -n` or the service manager before start.
 */
export function defaultMaxConnections(): number {
  let soft = 1024;
  try {
    const line = Deno.readTextFileSync("/proc/self/limits").split("\n")
      .find((l) => l.startsWith("Max open files"));
    const value = line?.split(/\s+/)[3];
    if (value === "unlimited") soft = 1_048_576;
    else if (value !== undefined && /^\d+$/.test(value)) soft = Number(value);
  } catch {
    // Not Linux or no read permission: the common default.
  }
  return Math.max(64, Math.min(65_536, Math.floor((soft - 512) / 4)));
}

/**
 * The relay's read buffers, per direction and connection (relay_buffer.ts): a pending read
 * holds a small one, so an open stream that waits for its next event holds 2 × 2 KiB instead
 * of 2 × 16 KiB; a read that fills it switches to the large one for bulk transfers.
 */
const RELAY_SMALL_BYTES = 2 * 1024;
const RELAY_LARGE_BYTES = 16 * 1024;

function noDelay(conn: Deno.Conn) {
  try {
    (conn as Deno.TcpConn).setNoDelay(true);
  } catch { /* not TCP, or already closed */ }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `HTTP/1.1 4xx` at the start of a chunk: the status code, else undefined. */
function refusalStatus(chunk: Uint8Array): number | undefined {
  if (chunk.length < 12) return undefined;
  const head = new TextDecoder().decode(chunk.subarray(0, 12));
  const match = /^HTTP\/1\.[01] (4\d\d)$/.exec(head);
  return match ? Number(match[1]) : undefined;
}

export function serveGuarded(
  options: {
    hostname: string;
    port: number;
    limits: GuardLimits;
    log: Logger;
    /** `SO_REUSEPORT`: other isolates (`SOVRA_WORKERS`) listen on the same port. */
    reusePort?: boolean;
  },
  handler: Handler,
): GuardedServer {
  const { limits, log } = options;
  const listener = Deno.listen({
    hostname: options.hostname,
    port: options.port,
    ...(options.reusePort ? { reusePort: true } : {}),
  });
  const byInnerPort = new Map<number, ConnState>();
  const states = new Set<ConnState>();
  let closing = false;

  const close = (state: ConnState) => {
    if (state.closed) return;
    state.closed = true;
    states.delete(state);
    try {
      state.client.close();
    } catch { /* already closed */ }
    if (state.inner) {
      byInnerPort.delete(state.innerPort);
      try {
        state.inner.close();
      } catch { /* already closed */ }
    }
  };

  // The header and idle limits: a deadline per connection, checked by one interval for all
  // of them (a timer per request cost ~10 µs each; see deadline_sweep.ts). It runs while any
  // connection is open and fires at most one tick (a tenth of the shorter limit) late.
  const tick = tickFor(Math.min(limits.headerTimeoutMs, limits.idleTimeoutMs));
  let sweeper: ReturnType<typeof setInterval> | undefined;
  const sweep = () => {
    const now = performance.now();
    for (const state of states) {
      if (state.deadline > now) continue;
      log.debug("connection closed", { reason: state.why });
      close(state);
    }
    if (states.size === 0) stopSweeper();
  };
  const stopSweeper = () => {
    if (sweeper === undefined) return;
    clearInterval(sweeper);
    sweeper = undefined;
  };
  const arm = (state: ConnState, ms: number, why: string) => {
    state.deadline = performance.now() + ms;
    state.why = why;
  };
  const disarm = (state: ConnState) => {
    state.deadline = Infinity;
  };

  let inner = startInner();

  function startInner(): Deno.HttpServer<Deno.NetAddr> {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
    }, (request, info) => {
      const state = byInnerPort.get(info.remoteAddr.port);
      if (state) {
        state.inFlight++;
        state.awaitingHeaders = false;
        disarm(state);
        info.completed.finally(() => {
          state.inFlight--;
          if (state.inFlight === 0 && !state.closed) {
            arm(state, limits.idleTimeoutMs, "idle");
          }
        });
      }
      // The handler sees the client's address, not the relay's loopback one (the dashboard
      // throttles sign-ins per client address).
      const client = state?.client.remoteAddr as Deno.NetAddr | undefined;
      return handler(request, client ? { remoteAddr: client, completed: info.completed } : info);
    });
    server.finished.catch((error) => {
      // An accept error (EMFILE) ends a Deno.serve server: start another one.
      log.error("http server failed; restarting it", { reason: errorMessage(error) });
      void restartInner();
    });
    return server;
  }

  /** Starts a new inner server, retrying while descriptors are short. */
  async function restartInner() {
    while (!closing) {
      try {
        inner = startInner();
        return;
      } catch (error) {
        log.warn("http server restart failed; retrying", { reason: errorMessage(error) });
        await delay(100);
      }
    }
  }

  async function relay(state: ConnState, port: number) {
    try {
      state.inner = await Deno.connect({ hostname: "127.0.0.1", port });
    } catch (error) {
      log.warn("connection refused: no inner connection", { reason: errorMessage(error) });
      close(state);
      return;
    }
    if (state.closed) {
      state.inner.close();
      return;
    }
    // Small writes (an SSE event, a request) go out at once, never held back by Nagle's
    // algorithm waiting for the previous segment's ACK.
    noDelay(state.client);
    noDelay(state.inner);
    state.innerPort = state.inner.localAddr.port;
    byInnerPort.set(state.innerPort, state);
    // The client may half-close and still read its answer; when the server side ends (an
    // answer done on a closing connection, or a stream dropped on purpose), so does the client's.
    const fromClient = clientToServer(state).catch(() => close(state));
    await serverToClient(state).catch(() => {});
    close(state);
    await fromClient;
  }

  async function clientToServer(state: ConnState) {
    const buffers = new RelayBuffer(RELAY_SMALL_BYTES, RELAY_LARGE_BYTES);
    const innerConn = state.inner!;
    for (;;) {
      const buffer = buffers.next();
      const n = await state.client.read(buffer);
      if (n === null) break;
      buffers.filled(n);
      if (state.inFlight === 0 && !state.awaitingHeaders) {
        state.awaitingHeaders = true;
        arm(state, limits.headerTimeoutMs, "header timeout");
      }
      let offset = 0;
      while (offset < n) offset += await innerConn.write(buffer.subarray(offset, n));
    }
    // The client finished sending; let the server finish its answer.
    await innerConn.closeWrite().catch(() => {});
  }

  async function serverToClient(state: ConnState) {
    const buffers = new RelayBuffer(RELAY_SMALL_BYTES, RELAY_LARGE_BYTES);
    const innerConn = state.inner!;
    for (;;) {
      const buffer = buffers.next();
      const n = await innerConn.read(buffer);
      if (n === null) break;
      buffers.filled(n);
      let chunk: Uint8Array<ArrayBufferLike> = buffer.subarray(0, n);
      if (state.inFlight === 0 && state.awaitingHeaders) {
        // No handler ran for these bytes: the server refused them at the HTTP layer.
        const status = refusalStatus(chunk);
        if (status !== undefined) {
          chunk = errorResponseBytes(
            status === 431 ? 431 : 400,
            "invalid_request",
            status === 431
              ? "The request headers are too large."
              : "The request is not valid HTTP/1.1 (request line, headers or body framing).",
          );
          await writeAll(state.client, chunk);
          break;
        }
      }
      await writeAll(state.client, chunk);
    }
  }

  async function writeAll(conn: Deno.Conn, bytes: Uint8Array) {
    let offset = 0;
    while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
  }

  async function refuse(conn: Deno.Conn) {
    const bytes = errorResponseBytes(
      503,
      "server_busy",
      "The gateway has too many open connections; retry shortly.",
    );
    const timer = setTimeout(() => conn.close(), 1_000);
    try {
      await writeAll(conn, bytes);
    } catch { /* the client left */ }
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed by the timer */ }
  }

  const acceptLoop = (async () => {
    let lastWarn = 0;
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (closing || error instanceof Deno.errors.BadResource) return;
        if (Date.now() - lastWarn > 10_000) {
          lastWarn = Date.now();
          log.warn("accept failed; retrying", { reason: errorMessage(error), open: states.size });
        }
        await delay(50);
        continue;
      }
      if (states.size >= limits.maxConnections) {
        void refuse(conn);
        continue;
      }
      const state: ConnState = {
        client: conn,
        inner: undefined,
        innerPort: 0,
        inFlight: 0,
        awaitingHeaders: true,
        deadline: Infinity,
        why: "",
        closed: false,
      };
      states.add(state);
      arm(state, limits.headerTimeoutMs, "header timeout");
      sweeper ??= setInterval(sweep, tick);
      void relay(state, inner.addr.port);
    }
  })();

  return {
    addr: listener.addr as Deno.NetAddr,
    get open() {
      return states.size;
    },
    async shutdown() {
      closing = true;
      listener.close();
      await acceptLoop;
      // In-flight requests finish (the inner server's graceful shutdown); idle ones close now.
      for (const state of [...states]) if (state.inFlight === 0) close(state);
      await inner.shutdown();
      for (const state of [...states]) close(state);
      stopSweeper();
    },
  };
}
