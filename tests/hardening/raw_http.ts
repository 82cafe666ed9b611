/**
 * A client at the socket level for the connection tests: requests written exactly as a test
 * says (headers and body in separate writes, pauses between them), answers read one at a time
 * off a kept-alive connection. Responses are parsed only as far as the assertions need
 * (status, headers, a Content-Length or chunked body).
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

export class RawConnection {
  #pending = new Uint8Array(0);
  closed = false;

  private constructor(readonly conn: Deno.TcpConn) {}

  static async open(port: number, options: { noDelay?: boolean } = {}): Promise<RawConnection> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    if (options.noDelay) conn.setNoDelay(true);
    return new RawConnection(conn);
  }

  async write(text: string): Promise<void> {
    const bytes = encoder.encode(text);
    let offset = 0;
    while (offset < bytes.length) offset += await this.conn.write(bytes.subarray(offset));
  }

  /** More bytes from the server; false at its end of stream. */
  async #fill(): Promise<boolean> {
    const buffer = new Uint8Array(16 * 1024);
    let n: number | null;
    try {
      n = await this.conn.read(buffer);
    } catch {
      n = null; // reset by the server: its end of stream too
    }
    if (n === null) {
      this.closed = true;
      return false;
    }
    const next = new Uint8Array(this.#pending.length + n);
    next.set(this.#pending);
    next.set(buffer.subarray(0, n), this.#pending.length);
    this.#pending = next;
    return true;
  }

  #indexOf(text: string, from = 0): number {
    return decoder.decode(this.#pending).indexOf(text, from);
  }

  #take(bytes: number): string {
    const out = decoder.decode(this.#pending.subarray(0, bytes));
    this.#pending = this.#pending.subarray(bytes);
    return out;
  }

  /** One whole answer, or undefined when the connection ended first. */
  async answer(): Promise<RawAnswer | undefined> {
    let end: number;
    while ((end = this.#indexOf("\r\n\r\n")) < 0) {
      if (!(await this.#fill())) return undefined;
    }
    const head = this.#take(end + 4);
    const [statusLine, ...lines] = head.trimEnd().split("\r\n");
    const status = Number(statusLine!.split(" ")[1]);
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    if (status === 100) return this.answer();
    let body = "";
    const length = headers.get("content-length");
    if (length !== undefined) {
      while (this.#pending.length < Number(length)) {
        if (!(await this.#fill())) return undefined;
      }
      body = this.#take(Number(length));
    } else if (headers.get("transfer-encoding") === "chunked") {
      for (;;) {
        let lineEnd: number;
        while ((lineEnd = this.#indexOf("\r\n")) < 0) {
          if (!(await this.#fill())) return undefined;
        }
        const size = parseInt(this.#take(lineEnd + 2), 16);
        while (this.#pending.length < size + 2) {
          if (!(await this.#fill())) return undefined;
        }
        body += this.#take(size + 2).slice(0, size);
        if (size === 0) break;
      }
    } else {
      while (await this.#fill()) { /* until the server closes */ }
      body = this.#take(this.#pending.length);
    }
    return { status, headers, body };
  }

  /** True when the server ends the connection within `ms` (bytes it sends are dropped). */
  async closedWithin(ms: number): Promise<boolean> {
    if (this.closed) return true;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.close();
    }, ms);
    while (await this.#fill()) { /* drain */ }
    clearTimeout(timer);
    return !timedOut;
  }

  close(): void {
    this.closed = true;
    try {
      this.conn.close();
    } catch { /* closed */ }
  }
}

/**
 * Sends `head` and the first 5 bytes of `body`, then nothing more: the answer (undefined when
 * the server closed without one) and the ms from the last byte sent until it came.
 */
export async function stoppedBody(port: number, head: string, body: string) {
  const conn = await RawConnection.open(port);
  await conn.write(head + body.slice(0, 5));
  const sent = performance.now();
  const answer = await conn.answer();
  const ms = performance.now() - sent;
  conn.close();
  return { answer, ms };
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A chat request's headers (ending in the blank line) and its body, for separate writes. */
export function chatRequest(key: string, options: { close?: boolean } = {}) {
  const body = JSON.stringify({
    model: "acme/chat",
    messages: [{ role: "user", content: "Hello there, how are you today?" }],
    max_tokens: 16,
  });
  // The header set httpx sends under the openai SDK (about 600 bytes with its x-stainless-*).
  const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Accept: application/json\r\nAccept-Encoding: gzip, deflate\r\n` +
    `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
    `User-Agent: OpenAI/Python 1.0\r\nX-Stainless-Lang: python\r\n` +
    `X-Stainless-Retry-Count: 0\r\nX-Stainless-Timeout: 600\r\n` +
    (options.close ? "Connection: close\r\n" : "") +
    `Content-Length: ${encoder.encode(body).length}\r\n\r\n`;
  return { head, body };
}
