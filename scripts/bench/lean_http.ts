/**
 * An HTTP/1.1 client over plain `Deno.connect` sockets, responses parsed by `http-parser-js`: the
 * first-byte probe of the production-shaped scenarios (production_load.ts) runs on the load core
 * beside wrk and the upstream, and through `fetch` (a web stream, a promise and a buffer per
 * chunk) each SSE event cost it about three times as much (73 against 23 µs, measured side by
 * side on the loaded host).
 */
import { Buffer } from "node:buffer";
import { HTTPParser } from "http-parser-js";

const READ_BUFFER = 16 * 1024;

/** Writes all of `bytes` (a socket write may take part of them). */
export async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

/** A request as bytes, ready to be written again and again (its body has a Content-Length). */
export function encodeRequest(
  url: URL,
  headers: Record<string, string>,
  body: string,
): Uint8Array {
  const bytes = new TextEncoder().encode(body);
  const lines = [`POST ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${bytes.length}`, "", "");
  const head = new TextEncoder().encode(lines.join("\r\n"));
  const out = new Uint8Array(head.length + bytes.length);
  out.set(head);
  out.set(bytes, head.length);
  return out;
}

export interface LeanResponse {
  status: number;
  /** The connection may carry another request. */
  keepAlive: boolean;
}

/** One keep-alive client connection: a request at a time, the body handed over as it arrives. */
export class LeanConnection {
  readonly #conn: Deno.TcpConn;
  readonly #parser = new HTTPParser(HTTPParser.RESPONSE);
  readonly #buffer = new Uint8Array(READ_BUFFER);
  #closed = false;

  private constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }

  static async open(hostname: string, port: number): Promise<LeanConnection> {
    const conn = await Deno.connect({ hostname, port });
    conn.setNoDelay(true);
    return new LeanConnection(conn);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Writes `request` and reads its response; `onBody` gets every piece of the body as it is
   * read (a view of the read buffer: use it before returning). Rejects when the connection
   * ends early or `timeoutMs` passes (the connection is closed then).
   */
  async request(
    request: Uint8Array,
    onBody: (bytes: Uint8Array) => void,
    timeoutMs: number,
  ): Promise<LeanResponse> {
    let status = 0;
    let keepAlive = false;
    let complete = false;
    const parser = this.#parser;
    parser[HTTPParser.kOnHeadersComplete] = (info) => {
      status = info.statusCode;
      keepAlive = info.shouldKeepAlive;
    };
    parser[HTTPParser.kOnBody] = (chunk: Buffer, offset: number, length: number) => {
      onBody(new Uint8Array(chunk.buffer, chunk.byteOffset + offset, length));
    };
    parser[HTTPParser.kOnMessageComplete] = () => {
      complete = true;
    };
    const timer = setTimeout(() => this.close(), timeoutMs);
    try {
      await writeAll(this.#conn, request);
      while (!complete) {
        const n = await this.#conn.read(this.#buffer);
        if (n === null) throw new Error("connection closed before the response ended");
        const parsed = parser.execute(Buffer.from(this.#buffer.buffer, 0, n));
        if (parsed instanceof Error) throw parsed;
      }
    } catch (error) {
      this.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (!keepAlive) this.close();
    return { status, keepAlive };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }
}
