/**
 * Reading a request body within a size limit and a deadline counted from its headers (a slow
 * body is a held connection): the API's JSON bodies (http/body.ts) and the dashboard's forms
 * (dashboard/body_deadline.ts). A body that took too long is 400 `upload_timeout` with
 * `connection: close`.
 */
import { GatewayError } from "./errors.ts";
import { DeadlineSweep } from "./util/deadline_sweep.ts";

export const JSON_BODY_LIMIT = 2 * 1024 * 1024;
export const JSON_BODY_DEADLINE_MS = 30_000;

function bodyTimeout(deadlineMs: number): GatewayError {
  return new GatewayError(
    400,
    "upload_timeout",
    `The request body did not arrive within ${deadlineMs / 1000} seconds.`,
    { headers: { connection: "close" } },
  );
}

/** Body deadlines of every request in flight: one timer for all (deadline_sweep.ts). */
const deadlines = new DeadlineSweep();

/** `read` within `deadlineMs`, else `onTimeout` runs and the timeout error is thrown. */
function withDeadline<T>(
  read: Promise<T>,
  deadlineMs: number,
  onTimeout: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const deadline = deadlines.add(deadlineMs, () => {
      onTimeout();
      reject(bodyTimeout(deadlineMs));
    });
    read.then(
      (value) => {
        deadlines.delete(deadline);
        resolve(value);
      },
      (error) => {
        deadlines.delete(deadline);
        reject(error);
      },
    );
  });
}

/** A declared body's timeout has nothing to cancel (one function, not a closure a request). */
const nothing = () => {};

export async function readLimitedBytes(
  request: Request,
  limit: number,
  tooLarge: () => Error,
  deadlineMs = JSON_BODY_DEADLINE_MS,
): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (declared !== null) {
    // The length is declared and within the limit: one native read (HTTP/1.1 framing stops
    // the body at the declared length, so no more than the limit can arrive). `request.body`
    // is not touched: that getter builds a ReadableStream (~7 µs) this read does not need.
    return new Uint8Array(await withDeadline(request.arrayBuffer(), deadlineMs, nothing));
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const { done, value } = await withDeadline(
      reader.read(),
      Math.max(0, deadline - Date.now()),
      () => void reader.cancel().catch(() => {}),
    );
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    parts.push(value);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
