/** Append-only typed arrays that double their storage: the builders' flat term stores. */

export class GrowableInt32 {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 16) {
    this.data = new Int32Array(Math.max(4, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  get(i: number): number {
    return this.data[i]!;
  }

  /** A copy of the first `length` entries. */
  toArray(): Int32Array {
    return this.data.slice(0, this.length);
  }

  /** The live storage: valid up to `length`, replaced when it grows. */
  view(): Int32Array {
    return this.data;
  }
}

export class GrowableFloat64 {
  private data: Float64Array;
  length = 0;

  constructor(capacity = 16) {
    this.data = new Float64Array(Math.max(4, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Extends with zeros up to `length` entries. */
  resize(length: number): void {
    if (length > this.data.length) this.grow(length);
    if (length > this.length) this.data.fill(0, this.length, length);
    this.length = length;
  }

  get(i: number): number {
    return this.data[i]!;
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }

  add(i: number, value: number): void {
    this.data[i]! += value;
  }

  toArray(): Float64Array {
    return this.data.slice(0, this.length);
  }

  view(): Float64Array {
    return this.data;
  }

  private grow(minimum: number): void {
    let size = this.data.length * 2;
    while (size < minimum) size *= 2;
    const next = new Float64Array(size);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

export class GrowableUint8 {
  private data: Uint8Array;
  length = 0;

  constructor(capacity = 16) {
    this.data = new Uint8Array(Math.max(4, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Uint8Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  get(i: number): number {
    return this.data[i]!;
  }

  toArray(): Uint8Array {
    return this.data.slice(0, this.length);
  }

  view(): Uint8Array {
    return this.data;
  }
}
