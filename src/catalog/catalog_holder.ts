/** Holds the current catalog and swaps it on reload; a bad edit keeps the old one. */
import { type Catalog } from "./catalog.ts";
import { loadCatalog } from "./load.ts";
import { errorMessage, type Logger } from "../log.ts";
import type { DialectTable } from "./dialect_rules.ts";

export class CatalogHolder {
  #current: Catalog;

  constructor(
    initial: Catalog,
    private readonly dir: string,
    private readonly log: Logger,
    private readonly dialects: DialectTable,
  ) {
    this.#current = initial;
  }

  get current(): Catalog {
    return this.#current;
  }

  /** Reloads from disk; returns whether the new catalog was taken. */
  async reload(): Promise<boolean> {
    try {
      this.#current = await loadCatalog(this.dir, this.dialects);
      this.log.info("catalog reloaded", { models: this.#current.models.length });
      return true;
    } catch (error) {
      this.log.error("catalog reload failed; keeping the previous catalog", {
        reason: errorMessage(error),
      });
      return false;
    }
  }
}
