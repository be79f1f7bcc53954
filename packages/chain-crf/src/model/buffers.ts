/**
 * Typed arrays on a SharedArrayBuffer when `shared`, so worker threads read them without a copy.
 * A page that is not cross-origin isolated has no SharedArrayBuffer (and no worker pool to share
 * with): there the arrays are plain.
 */
const HAS_SHARED_MEMORY = typeof SharedArrayBuffer === "function";

function isShared(buffer: ArrayBufferLike): boolean {
  return HAS_SHARED_MEMORY && buffer instanceof SharedArrayBuffer;
}

export function int32Array(length: number, shared: boolean): Int32Array {
  return shared && HAS_SHARED_MEMORY
    ? new Int32Array(new SharedArrayBuffer(length * Int32Array.BYTES_PER_ELEMENT))
    : new Int32Array(length);
}

export function float64Array(length: number, shared: boolean): Float64Array {
  return shared && HAS_SHARED_MEMORY
    ? new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT))
    : new Float64Array(length);
}

/** Copies `source` onto shared memory (or returns it when it already is, or none exists). */
export function toSharedInt32(source: Int32Array): Int32Array {
  if (!HAS_SHARED_MEMORY || isShared(source.buffer)) return source;
  const out = int32Array(source.length, true);
  out.set(source);
  return out;
}

export function toSharedFloat64(source: Float64Array): Float64Array {
  if (!HAS_SHARED_MEMORY || isShared(source.buffer)) return source;
  const out = float64Array(source.length, true);
  out.set(source);
  return out;
}
