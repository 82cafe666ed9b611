/**
 * Verdicts of texts already scanned, so a chat's history, resent on every turn, is not scanned
 * again: a bounded LRU keyed by a 64-bit hash (two 32-bit multiplicative hashes over the
 * text's characters, two at a time, and its length) of the model version, channel and text.
 * Both halves start from a random seed drawn per cache (crypto.getRandomValues), so two texts
 * sharing a key cannot be built offline to slip an injection past a cached "pass" (review item
 * 6); the hash is still not a MAC. Holds no text.
 */
import type { Channel, TextVerdict } from "./scan_text.ts";

export class VerdictCache {
  #entries = new Map<string, TextVerdict>();
  readonly #seed = crypto.getRandomValues(new Uint32Array(2));

  constructor(private readonly capacity = 4096) {}

  key(version: string, channel: Channel, text: string): string {
    let a = (0x811c9dc5 ^ this.#seed[0]!) | 0;
    let b = 0x01000193 ^ this.#seed[1]! ^ text.length;
    const length = text.length;
    // Two characters (16 bits each) per step: half the multiplications.
    let i = 0;
    for (; i + 1 < length; i += 2) {
      const c = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    if (i < length) {
      a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
      b = Math.imul(b ^ text.charCodeAt(i), 0x5bd1e995);
    }
    return `${version}|${channel}|${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}`;
  }

  get(key: string): TextVerdict | undefined {
    const verdict = this.#entries.get(key);
    if (verdict !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, verdict);
    }
    return verdict;
  }

  set(key: string, verdict: TextVerdict): void {
    this.#entries.delete(key);
    this.#entries.set(key, verdict);
    if (this.#entries.size > this.capacity) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
