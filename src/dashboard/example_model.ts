/** A chat model id for the snippets shown with a new key (the catalog's first strict one). */
import type { DashboardDeps } from "./deps.ts";

export function exampleModel(deps: DashboardDeps): string {
  const models = deps.catalog?.().activeModels() ?? [];
  const chat = models.filter((m) => m.kind === "chat");
  return (chat.find((m) => m.sovereignty === "strict") ?? chat[0])?.id ?? "MODEL_ID";
}
