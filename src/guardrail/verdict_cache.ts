/**
 * Verdicts of texts already scanned, so a chat's history, resent on every turn, is not scanned
 * again: a bounded LRU keyed by a 53-bit hash (two 32-bit multiplicative hashes over the text's
 * characters, two at a time, and its length, one of them cut to 21 bits) of the model version,
 * channel and text. Both halves start from a random seed drawn per cache
 * (crypto.getRandomValues), so two texts sharing a key cannot be built offline to slip an
 * injection past a cached "pass" (review item 6); the hash is still not a MAC. The chance that
 * a new text finds another's cached verdict is about 4,096 / 2^53 per lookup; the same text
 * in the user and the tool channel never shares a key. The key is a
 * number, not a string: nothing is built per lookup. Holds no text.
 */
import type { Channel, TextVerdict } from "./scan_text.ts";

/** 2^21: the first hash half is shifted above the second's 21 kept bits (53 bits in all). */
const HIGH = 0x200000;

export class VerdictCache {
  #entries = new Map<number, TextVerdict>();
  readonly #seed = crypto.getRandomValues(new Uint32Array(2));
  #version = "";
  #versionHash = 0;

  constructor(private readonly capacity = 4096) {}

  key(version: string, channel: Channel, text: string): number {
    if (version !== this.#version) {
      let h = 0x811c9dc5;
      for (let i = 0; i < version.length; i++) h = Math.imul(h ^ version.charCodeAt(i), 0x01000193);
      this.#version = version;
      this.#versionHash = h;
    }
    const length = text.length;
    // The channel is in both halves: each half is a bijection of its start for a given text,
    // so the full 32-bit half keeps the same text's two channels apart by construction (the
    // 21-bit half alone let about one text in 2^21 share a key across them).
    const tool = channel === "tool" ? 0x40000000 : 0;
    let a = (0x811c9dc5 ^ this.#seed[0]! ^ this.#versionHash ^ tool) | 0;
    let b = 0x01000193 ^ this.#seed[1]! ^ length ^ tool;
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
    a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d);
    a ^= a >>> 12;
    return (a >>> 0) * HIGH + (b >>> 11);
  }

  get(key: number): TextVerdict | undefined {
    const verdict = this.#entries.get(key);
    if (verdict !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, verdict);
    }
    return verdict;
  }

  set(key: number, verdict: TextVerdict): void {
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
