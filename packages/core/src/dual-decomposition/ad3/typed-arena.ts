/** The element types a run's buffers come in. */
type ArrayType = Float64ArrayConstructor | Int32ArrayConstructor | Uint8ArrayConstructor;

/**
 * Zeroed typed arrays of `type`, one per length, in order. V8 keeps the store of a typed array
 * above 64 bytes outside its heap, at 0.7–4 µs an allocation against ~0.1 µs for a view on an
 * existing one: setting up a run's ~80 buffers one by one had been most of the time AD3 took on
 * a small graph (network.uai: a MAP pass over 860 edges behind ~200 µs of set-up). So the arrays
 * above that size are views on one ArrayBuffer, and the smaller ones stay on the heap, where
 * they cost less than a view.
 */
export function carve<T extends ArrayType, const L extends readonly number[]>(
  type: T,
  lengths: L,
): { -readonly [K in keyof L]: InstanceType<T> } {
  const unit = type.BYTES_PER_ELEMENT;
  let bytes = 0;
  for (let k = 0; k < lengths.length; k++) {
    const size = unit * lengths[k]!;
    if (size > ON_HEAP_BYTES) bytes += align(size);
  }
  const buffer = bytes > 0 ? new ArrayBuffer(bytes) : null;
  const carved: (Float64Array | Int32Array | Uint8Array)[] = new Array(lengths.length);
  let at = 0;
  for (let k = 0; k < lengths.length; k++) {
    const length = lengths[k]!;
    const size = unit * length;
    // One constructor per branch: a call site that sees all three constructs slowly.
    if (buffer !== null && size > ON_HEAP_BYTES) {
      carved[k] =
        type === Float64Array
          ? new Float64Array(buffer, at, length)
          : type === Int32Array
            ? new Int32Array(buffer, at, length)
            : new Uint8Array(buffer, at, length);
      at += align(size);
    } else {
      carved[k] =
        type === Float64Array
          ? new Float64Array(length)
          : type === Int32Array
            ? new Int32Array(length)
            : new Uint8Array(length);
    }
  }
  return carved as { -readonly [K in keyof L]: InstanceType<T> };
}

/** V8's limit for a typed array kept on its heap (V8_TYPED_ARRAY_MAX_SIZE_IN_HEAP). */
const ON_HEAP_BYTES = 64;

/** Views on a Float64Array start on an 8-byte boundary. */
function align(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}
