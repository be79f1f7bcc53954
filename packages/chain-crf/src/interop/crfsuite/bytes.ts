import { ModelFileError } from "../../model-file.js";

/**
 * Bounds-checked little-endian reads over a file's bytes: every read names the file and what was
 * being read when it runs past the end, so a truncated or corrupt file never reads garbage.
 */
export class ByteReader {
  readonly #view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
  ) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get length(): number {
    return this.bytes.length;
  }

  fail(reason: string): never {
    throw new ModelFileError(this.file, reason);
  }

  /** Checks that [offset, offset + size) lies in the file (or in `limit` bytes of it). */
  need(offset: number, size: number, what: string, limit = this.bytes.length): void {
    if (offset < 0 || size < 0 || offset + size > limit) {
      this.fail(
        `${what} at byte ${offset} (${size} bytes) runs past the end (${limit} bytes): the file is truncated or corrupt`,
      );
    }
  }

  u32(offset: number, what: string): number {
    this.need(offset, 4, what);
    return this.#view.getUint32(offset, true);
  }

  f64(offset: number, what: string): number {
    this.need(offset, 8, what);
    return this.#view.getFloat64(offset, true);
  }

  tag(offset: number, expected: string, what: string): void {
    this.need(offset, 4, what);
    let found = "";
    for (let i = 0; i < 4; i++) found += String.fromCharCode(this.bytes[offset + i]!);
    if (found !== expected) {
      this.fail(
        `${what} at byte ${offset}: expected the tag "${expected}", found ${JSON.stringify(found)}`,
      );
    }
  }
}

/** A growable little-endian byte buffer for the writer. */
export class ByteWriter {
  #bytes = new Uint8Array(1 << 16);
  #view = new DataView(this.#bytes.buffer);
  length = 0;

  #reserve(n: number): void {
    if (this.length + n <= this.#bytes.length) return;
    let size = this.#bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#bytes.subarray(0, this.length));
    this.#bytes = grown;
    this.#view = new DataView(grown.buffer);
  }

  u32(value: number): void {
    this.#reserve(4);
    this.#view.setUint32(this.length, value >>> 0, true);
    this.length += 4;
  }

  f64(value: number): void {
    this.#reserve(8);
    this.#view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  raw(data: Uint8Array): void {
    this.#reserve(data.length);
    this.#bytes.set(data, this.length);
    this.length += data.length;
  }

  ascii(tag: string): void {
    this.#reserve(tag.length);
    for (let i = 0; i < tag.length; i++) this.#bytes[this.length++] = tag.charCodeAt(i);
  }

  /** Zero bytes up to the next multiple of `n` (CRFsuite aligns its reference chunks to 4). */
  align(n: number): void {
    while (this.length % n !== 0) {
      this.#reserve(1);
      this.#bytes[this.length++] = 0;
    }
  }

  /** Overwrites a u32 already written (sizes and offsets known only later). */
  patchU32(offset: number, value: number): void {
    this.#view.setUint32(offset, value >>> 0, true);
  }

  finish(): Uint8Array {
    return this.#bytes.slice(0, this.length);
  }
}
