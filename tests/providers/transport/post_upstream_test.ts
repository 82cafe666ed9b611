/**
 * `postUpstream`, the one upstream transport of every provider call: a 2xx answer returned
 * unread, error bodies capped at 64 KiB before the dialect's mapper sees them, a refused
 * connection as a retryable `unavailable`, the caller's abort rethrown as its own reason.
 * Against real HTTP servers on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { MAX_ERROR_BODY, postUpstream } from "../../../src/providers/transport/post_upstream.ts";
import { UpstreamFailure } from "../../../src/providers/upstream_failure.ts";

async function withServer(
  handler: (request: Request) => Response | Promise<Response>,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/x`);
  } finally {
    await server.shutdown();
  }
}

const noFailure = () => {
  throw new Error("the mapper must not run");
};

Deno.test("postUpstream — a 2xx answer comes back unread, with the request as sent", async () => {
  let seen: { method: string; type: string | null; body: string } | undefined;
  await withServer(async (request) => {
    seen = {
      method: request.method,
      type: request.headers.get("content-type"),
      body: await request.text(),
    };
    return new Response("hello");
  }, async (url) => {
    const response = await postUpstream({
      url,
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
      signal: new AbortController().signal,
      fetch,
      failure: noFailure,
    });
    assert.equal(await response.text(), "hello");
  });
  assert.deepEqual(seen, { method: "POST", type: "application/json", body: '{"a":1}' });
});

Deno.test("postUpstream — an error body is capped at 64 KiB before the dialect's mapper", async () => {
  const huge = "e".repeat(3 * MAX_ERROR_BODY);
  await withServer(() => new Response(huge, { status: 503 }), async (url) => {
    let mapped: { status: number; length: number } | undefined;
    await assert.rejects(
      postUpstream({
        url,
        headers: {},
        body: "{}",
        signal: new AbortController().signal,
        fetch,
        failure: (response, text) => {
          mapped = { status: response.status, length: text.length };
          return new UpstreamFailure("unavailable", "down", { status: response.status });
        },
      }),
      (e) => e instanceof UpstreamFailure && e.status === 503,
    );
    assert.equal(mapped?.status, 503);
    assert.ok(mapped!.length <= MAX_ERROR_BODY && mapped!.length >= 1024, `${mapped!.length}`);
  });
});

Deno.test("postUpstream — a refused connection is a retryable unavailable failure", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await assert.rejects(
    postUpstream({
      url: `http://127.0.0.1:${port}/x`,
      headers: {},
      body: "{}",
      signal: new AbortController().signal,
      fetch,
      failure: noFailure,
    }),
    (e) => e instanceof UpstreamFailure && e.kind === "unavailable" && e.retryable,
  );
});

Deno.test("postUpstream — the caller's abort rethrows the abort's own reason", async () => {
  const reason = new UpstreamFailure("unavailable", "The provider went silent.");
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  await withServer(async () => {
    await held;
    return new Response("late");
  }, async (url) => {
    const controller = new AbortController();
    const pending = postUpstream({
      url,
      headers: {},
      body: "{}",
      signal: controller.signal,
      fetch,
      failure: noFailure,
    });
    setTimeout(() => controller.abort(reason), 20);
    await assert.rejects(pending, (e) => e === reason);
    release();
  });
});
