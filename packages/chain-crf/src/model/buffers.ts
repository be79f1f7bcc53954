/** Typed arrays on a SharedArrayBuffer when `shared`, so worker threads read them without a copy. */
export function int32Array(length: number, shared: boolean): Int32Array {
  return shared
    ? new Int32Array(new SharedArrayBuffer(length * Int32Array.BYTES_PER_ELEMENT))
    : new Int32Array(length);
}

export function float64Array(length: number, shared: boolean): Float64Array {
  return shared
    ? new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT))
    : new Float64Array(length);
}

/** Copies `source` onto shared memory (or returns it when it already is). */
export function toSharedInt32(source: Int32Array): Int32Array {
  if (source.buffer instanceof SharedArrayBuffer) return source;
  const out = int32Array(source.length, true);
  out.set(source);
  return out;
}

export function toSharedFloat64(source: Float64Array): Float64Array {
  if (source.buffer instanceof SharedArrayBuffer) return source;
  const out = float64Array(source.length, true);
  out.set(source);
  return out;
}
