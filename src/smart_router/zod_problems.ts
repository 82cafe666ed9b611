/** A zod failure as one line naming each field and its problem (for CLI and dashboard). */
import type { z } from "zod";

export function zodProblems(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "policy"}: ${issue.message}`)
    .join("; ");
}
