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
 * `spare`: a buffer a finished run gave back, zeroed and used where it is large enough (the
 * buffer the views are on is the fourth element, null where none is off the heap).
 */
export function carveAll<
  const F extends readonly number[],
  const I extends readonly number[],
  const U extends readonly number[],
>(
  doubles: F,
  integers: I,
  bytes: U,
  spare: ArrayBuffer | null = null,
): [Carved<F, Float64Array>, Carved<I, Int32Array>, Carved<U, Uint8Array>, ArrayBuffer | null] {
  const size = offHeapBytes(doubles, 8) + offHeapBytes(integers, 4) + offHeapBytes(bytes, 1);
  // (Null only where no array is off the heap, so no view is made on it.)
  let buffer = null as unknown as ArrayBuffer;
  if (size > 0 && spare !== null && spare.byteLength >= size) {
    buffer = spare;
    new Uint8Array(buffer, 0, size).fill(0);
  } else if (size > 0) buffer = new ArrayBuffer(size);
  // One loop per type, one constructor in each: a call site that sees all three constructs
  // slowly. Every view starts on an 8-byte boundary, so each type's alignment holds.
  let at = 0;
  const f = new Array<Float64Array>(doubles.length);
  for (let k = 0; k < doubles.length; k++) {
    const length = doubles[k]!;
    if (8 * length <= ON_HEAP_BYTES) f[k] = new Float64Array(length);
    else {
      f[k] = new Float64Array(buffer, at, length);
      at += align(8 * length);
    }
  }
  const i = new Array<Int32Array>(integers.length);
  for (let k = 0; k < integers.length; k++) {
    const length = integers[k]!;
    if (4 * length <= ON_HEAP_BYTES) i[k] = new Int32Array(length);
    else {
      i[k] = new Int32Array(buffer, at, length);
      at += align(4 * length);
    }
  }
  const u = new Array<Uint8Array>(bytes.length);
  for (let k = 0; k < bytes.length; k++) {
    const length = bytes[k]!;
    if (length <= ON_HEAP_BYTES) u[k] = new Uint8Array(length);
    else {
      u[k] = new Uint8Array(buffer, at, length);
      at += align(length);
    }
  }
  return [f, i, u, size > 0 ? buffer : null] as [
    Carved<F, Float64Array>,
    Carved<I, Int32Array>,
    Carved<U, Uint8Array>,
    ArrayBuffer | null,
  ];
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

/** Views start on an 8-byte boundary. */
function align(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}
