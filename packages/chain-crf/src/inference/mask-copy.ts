/**
 * A copy of the transition mask a plan was built for. Kernels that cache work per mask (the
 * sparse forward-backward, Viterbi's column plan) check on every call that the mask's contents are
 * unchanged — a caller may rewrite one array in place — and at 131 labels a byte-by-byte check
 * costs as much as a position of the recursion, so it compares four bytes at a time when both
 * arrays allow it.
 */
export class MaskCopy {
  L = -1;
  #bytes: Uint8Array = new Uint8Array(0);
  #words: Uint32Array = new Uint32Array(0);
  /** The last mask compared and its word view (one view per array, not per call). */
  #seen: Uint8Array | null = null;
  #seenWords: Uint32Array | null = null;

  /** Whether `allowed` (L·L) holds the copied contents. */
  matches(allowed: Uint8Array, L: number): boolean {
    if (L !== this.L) return false;
    const LL = L * L;
    const bytes = this.#bytes;
    const words = this.#wordsOf(allowed, LL);
    let from = 0;
    if (words !== null) {
      const own = this.#words;
      const count = LL >> 2;
      for (let w = 0; w < count; w++) if (own[w] !== words[w]) return false;
      from = count << 2;
    }
    for (let ab = from; ab < LL; ab++) if (bytes[ab] !== allowed[ab]) return false;
    return true;
  }

  set(allowed: Uint8Array, L: number): void {
    const LL = L * L;
    this.L = L;
    this.#bytes = new Uint8Array((LL + 3) & ~3);
    this.#bytes.set(allowed.subarray(0, LL));
    this.#words = new Uint32Array(this.#bytes.buffer, 0, LL >> 2);
  }

  #wordsOf(allowed: Uint8Array, LL: number): Uint32Array | null {
    if (allowed === this.#seen) return this.#seenWords;
    this.#seen = allowed;
    this.#seenWords =
      allowed.byteOffset % 4 === 0 && allowed.length >= LL
        ? new Uint32Array(allowed.buffer, allowed.byteOffset, LL >> 2)
        : null;
    return this.#seenWords;
  }
}

/**
 * Whether a plan's copy of the transition values (`values[ab]`) still equals the block at every
 * listed pair: training scores every sentence under the same weights, and this comparison costs
 * far less than rebuilding what the plan derived from them.
 */
export function valuesUnchanged(
  pairs: Int32Array,
  values: Float64Array,
  trans: Float64Array,
  base: number,
): boolean {
  for (let q = 0; q < pairs.length; q++) {
    const ab = pairs[q]!;
    if (values[ab] !== trans[base + ab]) return false;
  }
  return true;
}
