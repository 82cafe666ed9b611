/** A scripted streamed body with the scenario cuts: slow, silent, drop (connection destroyed), exception. */
import { sleep, waitForAbort } from "../openai/timing.ts";
import type { RebuildingBehaviour } from "./behaviour.ts";

export function scriptedBody(
  chunks: readonly Uint8Array[],
  behaviour: RebuildingBehaviour,
  signal: AbortSignal,
  exceptionChunk: Uint8Array,
): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (behaviour.slowMs > 0 && !(await sleep(behaviour.slowMs, signal))) {
        return controller.close();
      }
      if (i === behaviour.dropAfter) {
        return controller.error(new Error("Simulated connection drop."));
      }
      if (i === behaviour.silentAfter) {
        await waitForAbort(signal);
        return controller.close();
      }
      if (i === behaviour.exceptionAfter) {
        controller.enqueue(exceptionChunk);
        return controller.close();
      }
      const chunk = chunks[i++];
      if (chunk === undefined) return controller.close();
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
}
