/** Append-only typed arrays that double their storage: the builders' flat term stores. */

type Elements = Int32Array | Float64Array | Uint8Array;

/**
 * The growable array class of one element type. Each call makes a class of its own, so every
 * method's type feedback sees one array kind and the pushes stay monomorphic.
 */
export interface Growable<A extends Elements> {
  length: number;
  push(value: number): void;
  /** Extends with zeros up to `length` entries. */
  resize(length: number): void;
  get(i: number): number;
  set(i: number, value: number): void;
  add(i: number, value: number): void;
  /** A copy of the first `length` entries. */
  toArray(): A;
  /** The live storage: valid up to `length`, replaced when it grows. */
  view(): A;
}

// The declared return type keeps the emitted declarations free of TypeScript 5.7's
// `Int32Array<ArrayBuffer>` (TypeScript 5.0 consumers read them).
function growableOf<A extends Elements>(
  Kind: new (length: number) => A,
): new (
  capacity?: number,
) => Growable<A> {
  return class Growable {
    #data: A;
    length = 0;

    constructor(capacity = 16) {
      this.#data = new Kind(Math.max(4, capacity));
    }

    push(value: number): void {
      if (this.length === this.#data.length) this.#grow(this.length + 1);
      this.#data[this.length++] = value;
    }

    /** Extends with zeros up to `length` entries. */
    resize(length: number): void {
      if (length > this.#data.length) this.#grow(length);
      if (length > this.length) this.#data.fill(0, this.length, length);
      this.length = length;
    }

    get(i: number): number {
      return this.#data[i]!;
    }

    set(i: number, value: number): void {
      this.#data[i] = value;
    }

    add(i: number, value: number): void {
      this.#data[i]! += value;
    }

    /** A copy of the first `length` entries. */
    toArray(): A {
      return this.#data.slice(0, this.length) as A;
    }

    /** The live storage: valid up to `length`, replaced when it grows. */
    view(): A {
      return this.#data;
    }

    #grow(minimum: number): void {
      let size = this.#data.length * 2;
      while (size < minimum) size *= 2;
      const next = new Kind(size);
      next.set(this.#data.subarray(0, this.length));
      this.#data = next;
    }
  };
}

export type GrowableInt32 = Growable<Int32Array>;
export const GrowableInt32: new (capacity?: number) => GrowableInt32 = growableOf(Int32Array);
export type GrowableFloat64 = Growable<Float64Array>;
export const GrowableFloat64: new (capacity?: number) => GrowableFloat64 = growableOf(Float64Array);
export type GrowableUint8 = Growable<Uint8Array>;
export const GrowableUint8: new (capacity?: number) => GrowableUint8 = growableOf(Uint8Array);
