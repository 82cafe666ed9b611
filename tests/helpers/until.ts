/**
 * Polls `probe` until it holds; throws naming `what` after `limitMs`. A liveness bound for
 * state that settles asynchronously (holds released, notices told), not a timing assert.
 */
export async function until(
  what: string,
  probe: () => boolean | Promise<boolean>,
  limitMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
