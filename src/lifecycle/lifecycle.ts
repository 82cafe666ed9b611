/**
 * The process's drain state: readiness (unready from the start of a drain, so a load balancer
 * stops sending first) and the open streams, which a drain that runs out of time cuts. A cut
 * stream ends like an upstream failure after the first byte: the client's connection drops and
 * the tokens generated so far are settled (billed).
 */
export class Lifecycle {
  #draining = false;
  readonly #streams = new Set<() => void>();

  get draining(): boolean {
    return this.#draining;
  }

  /** Readiness turns unready; nothing else changes. */
  startDrain(): void {
    this.#draining = true;
  }

  /** An open stream and how to cut it; returns the function that forgets it again. */
  trackStream(cut: () => void): () => void {
    this.#streams.add(cut);
    return () => this.#streams.delete(cut);
  }

  get openStreams(): number {
    return this.#streams.size;
  }

  /** Cuts every open stream; returns how many. */
  cutStreams(): number {
    const cuts = [...this.#streams];
    this.#streams.clear();
    for (const cut of cuts) cut();
    return cuts.length;
  }
}
