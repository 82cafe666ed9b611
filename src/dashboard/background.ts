/**
 * Work the dashboard starts after it has answered: a password-reset mail is sent after the
 * answer that an unknown e-mail gets too, so the answer's timing says nothing about the
 * account. A failure is logged with its reason, never thrown at a request.
 */
import type { BackgroundWork } from "./deps.ts";
import { errorMessage, type Logger } from "../log.ts";

export function backgroundWork(log: Logger): BackgroundWork {
  const running = new Set<Promise<void>>();
  return {
    run(task) {
      const done: Promise<void> = task()
        .catch((error) =>
          log.warn("dashboard background task failed", {
            reason: errorMessage(error),
          })
        )
        .finally(() => running.delete(done));
      running.add(done);
    },
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
