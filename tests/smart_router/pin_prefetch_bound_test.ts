/**
 * A continuation's tool-call ids come from the client: the pin prefetch reads a bounded number
 * of them from the shared store, however many the request carries, and still finds the pin of
 * the model's own calls (they come first: the client sends the assistant turn back as given).
 */
import assert from "node:assert/strict";
import { openKvStore } from "../../src/state/kv/kv_store.ts";
import { MAX_PREFETCHED_CALLS, RouterPins } from "../../src/smart_router/pins.ts";
import type { RouterPinStore } from "../../src/state/router_pin_store.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { closing } from "../helpers/dispose.ts";

Deno.test("router pins — the prefetch reads a bounded number of a continuation's tool-call ids", async () => {
  await using store = closing(await openKvStore(":memory:"));
  const shared = store.routerPins!;
  const asked: string[] = [];
  const recording: RouterPinStore = {
    getRouterPins: (keys, at) => {
      asked.push(...keys);
      return shared.getRouterPins(keys, at);
    },
    putRouterPins: (pins) => shared.putRouterPins(pins),
  };
  // Instance A served the calls and pinned them (through to the store).
  const a = new RouterPins({ shared: recording });
  a.pinToolCalls("org_a", "p", ["call_0", "call_1"], "m/large");
  await a.idle();

  // The continuation reaches instance B with 5,000 tool-call ids in the assistant turn.
  const ids = Array.from({ length: 5_000 }, (_, i) => `call_${i}`);
  const request = {
    messages: [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: null,
        toolCalls: ids.map((id) => ({
          id,
          type: "function",
          function: { name: "f", arguments: "{}" },
        })),
      },
      { role: "tool", toolCallId: "call_0", content: "r" },
    ],
  } as unknown as Pick<ChatRequest, "messages" | "user">;
  const b = new RouterPins({ shared: recording });
  asked.length = 0;
  await b.prefetch("org_a", { id: "p" }, request);
  assert.ok(asked.length <= MAX_PREFETCHED_CALLS, `keys read: ${asked.length}`);
  assert.equal(b.toolLoop("org_a", "p", ids), "m/large");
});
