/**
 * A promise rejected with nobody listening ends a Deno isolate by default. In a gateway that is
 * one stray background call — a pooled PostgreSQL connection destroyed while the database was
 * away, say — taking every request of the isolate with it. Such a rejection is logged as an
 * error (so it is seen and fixed) and the isolate keeps serving.
 */
import { errorMessage, type Logger } from "../log.ts";

export function keepServingOnStrayRejections(log: Logger): void {
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log.error("unhandled rejection; the isolate keeps serving", {
      reason: errorMessage(event.reason),
    });
  });
}
