/** The element types a run's buffers come in. */
type ArrayType = Float64ArrayConstructor | Int32ArrayConstructor | Uint8ArrayConstructor;

type Carved<L extends readonly number[], A> = { -readonly [K in keyof L]: A };

/**
 * Zeroed typed arrays, one per length, in order: doubles, 32-bit integers and bytes. V8 keeps the
 * store of a typed array above 64 bytes outside its heap, and each ArrayBuffer costs 0.7–4 µs
 * (a call into the runtime, a zeroed allocation, its accounting) against ~0.1 µs for a view on an
 * existing one: setting up a run's buffers one by one had been most of the time AD3 took on a
 * small graph (network.uai: a MAP pass over 860 edges behind ~200 µs of set-up; sequence.fg, 40 %
 * of a solve in 9 buffers). So the arrays above that size, of all three types, are views on one
 * ArrayBuffer, and the smaller ones stay on the heap, where they cost less than a view.
 */
export function carveAll<
  const F extends readonly number[],
  const I extends readonly number[],
  const U extends readonly number[],
>(
  doubles: F,
  integers: I,
  bytes: U,
): [Carved<F, Float64Array>, Carved<I, Int32Array>, Carved<U, Uint8Array>] {
  // Every view starts on an 8-byte boundary (take), so each type's alignment holds.
  const size = offHeapBytes(doubles, 8) + offHeapBytes(integers, 4) + offHeapBytes(bytes, 1);
  // (Null only where no array is off the heap, so no view is made on it.)
  const buffer = (size > 0 ? new ArrayBuffer(size) : null) as ArrayBuffer;
  const at = [0];
  const f = new Array<Float64Array>(doubles.length);
  for (let k = 0; k < doubles.length; k++) {
    const length = doubles[k]!;
    f[k] =
      8 * length > ON_HEAP_BYTES
        ? new Float64Array(buffer, take(at, 8 * length), length)
        : new Float64Array(length);
  }
  const i = new Array<Int32Array>(integers.length);
  for (let k = 0; k < integers.length; k++) {
    const length = integers[k]!;
    i[k] =
      4 * length > ON_HEAP_BYTES
        ? new Int32Array(buffer, take(at, 4 * length), length)
        : new Int32Array(length);
  }
  const u = new Array<Uint8Array>(bytes.length);
  for (let k = 0; k < bytes.length; k++) {
    const length = bytes[k]!;
    u[k] =
      length > ON_HEAP_BYTES
        ? new Uint8Array(buffer, take(at, length), length)
        : new Uint8Array(length);
  }
  return [f, i, u] as [Carved<F, Float64Array>, Carved<I, Int32Array>, Carved<U, Uint8Array>];
}

/** {@link carveAll} for arrays of one type. */
export function carve<T extends ArrayType, const L extends readonly number[]>(
  type: T,
  lengths: L,
): Carved<L, InstanceType<T>> {
  const none: readonly number[] = [];
  const [f, i, u] =
    type === Float64Array
      ? carveAll(lengths, none, none)
      : type === Int32Array
        ? carveAll(none, lengths, none)
        : carveAll(none, none, lengths);
  return (type === Float64Array ? f : type === Int32Array ? i : u) as Carved<L, InstanceType<T>>;
}

/** V8's limit for a typed array kept on its heap (V8_TYPED_ARRAY_MAX_SIZE_IN_HEAP). */
const ON_HEAP_BYTES = 64;

/** The bytes the arrays of these lengths above the heap's limit take, each on an 8-byte boundary. */
function offHeapBytes(lengths: readonly number[], unit: number): number {
  let total = 0;
  for (let k = 0; k < lengths.length; k++) {
    const size = unit * lengths[k]!;
    if (size > ON_HEAP_BYTES) total += align(size);
  }
  return total;
}

/** The next view's offset, moving the cursor past it (8-byte aligned). */
function take(at: number[], size: number): number {
  const offset = at[0]!;
  at[0] = offset + align(size);
  return offset;
}

function align(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}
