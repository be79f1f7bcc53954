/**
 * Bob Jenkins' lookup3 `hashlittle`, byte by byte: CRFsuite's CQDB hashes every key (the string
 * with its terminating NUL) with it and an initial value of 0, so a file written here must use the
 * same function for CRFsuite's tagger to find its labels and attributes. The byte-wise form is
 * the little-endian word-reading C code's result on every input (the C code only reads faster).
 */
export function hashlittle(key: Uint8Array, initval = 0): number {
  let length = key.length;
  let a = (0xdeadbeef + length + initval) >>> 0;
  let b = a;
  let c = a;
  let k = 0;
  while (length > 12) {
    a = (a + (key[k]! | (key[k + 1]! << 8) | (key[k + 2]! << 16) | (key[k + 3]! << 24))) | 0;
    b = (b + (key[k + 4]! | (key[k + 5]! << 8) | (key[k + 6]! << 16) | (key[k + 7]! << 24))) | 0;
    c = (c + (key[k + 8]! | (key[k + 9]! << 8) | (key[k + 10]! << 16) | (key[k + 11]! << 24))) | 0;
    // mix(a, b, c)
    a = (a - c) | 0;
    a ^= rot(c, 4);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rot(a, 6);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rot(b, 8);
    b = (b + a) | 0;
    a = (a - c) | 0;
    a ^= rot(c, 16);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rot(a, 19);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rot(b, 4);
    b = (b + a) | 0;
    length -= 12;
    k += 12;
  }
  // The last block: the C switch's fall-through cases, as additions of the bytes present.
  if (length === 0) return c >>> 0;
  const byte = (i: number) => (i < length ? key[k + i]! : 0);
  a = (a + (byte(0) | (byte(1) << 8) | (byte(2) << 16) | (byte(3) << 24))) | 0;
  b = (b + (byte(4) | (byte(5) << 8) | (byte(6) << 16) | (byte(7) << 24))) | 0;
  c = (c + (byte(8) | (byte(9) << 8) | (byte(10) << 16) | (byte(11) << 24))) | 0;
  // final(a, b, c)
  c ^= b;
  c = (c - rot(b, 14)) | 0;
  a ^= c;
  a = (a - rot(c, 11)) | 0;
  b ^= a;
  b = (b - rot(a, 25)) | 0;
  c ^= b;
  c = (c - rot(b, 16)) | 0;
  a ^= c;
  a = (a - rot(c, 4)) | 0;
  b ^= a;
  b = (b - rot(a, 14)) | 0;
  c ^= b;
  c = (c - rot(b, 24)) | 0;
  return c >>> 0;
}

function rot(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
