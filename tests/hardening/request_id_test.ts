/**
 * Attack: request ids must not count traffic. Ids of consecutive requests
 * share nothing but their time prefix: no process-wide counter and no constant part that lets
 * one organization count another's requests between two of its own.
 */
import assert from "node:assert/strict";
import { withHarness } from "../helpers/chat.ts";

Deno.test("attack — consecutive x-sovra-request-id values carry no counter", () =>
  withHarness({ models: [] }, async (h) => {
    const tails: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${h.url}/v1/models`, {
        headers: { authorization: `Bearer ${h.key}` },
      });
      await res.body?.cancel();
      const id = res.headers.get("x-sovra-request-id") ?? "";
      assert.ok(id.startsWith("req_"), `id ${id}`);
      tails.push(id.slice(4 + 10)); // after the prefix and 10 time digits
    }
    // A counter or a per-process constant shows as shared leading digits or small steps.
    const heads = new Set(tails.map((t) => t.slice(0, 6)));
    assert.ok(heads.size >= 18, `the random part repeats: ${tails.join(" ")}`);
    for (let i = 1; i < tails.length; i++) {
      const step = parseInt(tails[i]!, 36) - parseInt(tails[i - 1]!, 36);
      assert.ok(Math.abs(step) > 1_000_000, `consecutive ids step by ${step}`);
    }
  }));
