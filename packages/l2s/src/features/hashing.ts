import type { FeatureSink } from "../search/types.js";

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixKey(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalMix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * MurmurHash3 (x86, 32-bit) of a string's UTF-16 code units, two per 32-bit block: the feature
 * hash VW uses, over JavaScript's own string representation so no encoding pass is needed.
 */
export function hashString(text: string, seed = 0): number {
  let h = seed | 0;
  const n = text.length;
  let i = 0;
  for (; i + 1 < n; i += 2) h = mixKey(h, text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
  if (i < n) {
    let k = Math.imul(text.charCodeAt(i), C1);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, C2);
  }
  return finalMix(h ^ (n * 2));
}

/** Hash of an ordered pair of hashes (a conjunction feature): order matters, (a, b) ≠ (b, a). */
export function hashCombine(a: number, b: number): number {
  return finalMix(mixKey(mixKey(0x2545f491, a), b) ^ 8);
}

/**
 * A sparse feature vector of hashed indices (32-bit) and values, grown on demand and reused: one
 * per decision being scored, cleared, never reallocated in steady state.
 */
export class HashedFeatures implements FeatureSink {
  hashes: Uint32Array = new Uint32Array(64);
  values: Float32Array = new Float32Array(64);
  length = 0;

  clear(): this {
    this.length = 0;
    return this;
  }

  add(name: string, value = 1): void {
    this.addHash(hashString(name), value);
  }

  addHash(hash: number, value = 1): void {
    if (this.length === this.hashes.length) this.grow(this.length * 2);
    this.hashes[this.length] = hash >>> 0;
    this.values[this.length] = value;
    this.length++;
  }

  /** Appends another vector's features. */
  append(other: HashedFeatures): void {
    const need = this.length + other.length;
    if (need > this.hashes.length) this.grow(Math.max(need, this.hashes.length * 2));
    this.hashes.set(other.hashes.subarray(0, other.length), this.length);
    this.values.set(other.values.subarray(0, other.length), this.length);
    this.length = need;
  }

  /** Replaces the contents with a copy of `other`'s. */
  copyFrom(other: HashedFeatures): this {
    this.length = 0;
    this.append(other);
    return this;
  }

  private grow(capacity: number): void {
    const hashes = new Uint32Array(capacity);
    hashes.set(this.hashes.subarray(0, this.length));
    const values = new Float32Array(capacity);
    values.set(this.values.subarray(0, this.length));
    this.hashes = hashes;
    this.values = values;
  }
}
