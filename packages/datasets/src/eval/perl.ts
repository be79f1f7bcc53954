/**
 * The few pieces of Perl behaviour that conlleval's output depends on, reproduced exactly:
 * `printf "%6.2f"` (C's correctly rounded, round-half-even on the exact binary value, where
 * `Number.prototype.toFixed` rounds ties up), `%17s` (Perl pads byte strings, so width counts
 * UTF-8 bytes), `sort` (byte order = code point order, where `<` on JS strings compares UTF-16
 * units), `split` (trailing empty fields dropped) and string truthiness (`""` and `"0"` are false).
 */

const TWO_52 = 2n ** 52n;

/** `sprintf("%<width>.<digits>f", x)` as C's printf writes it. */
export function formatFixed(x: number, width: number, digits: number): string {
  let body: string;
  if (Number.isNaN(x)) body = "NaN";
  else if (!Number.isFinite(x)) body = x > 0 ? "Inf" : "-Inf";
  else {
    const negative = x < 0 || Object.is(x, -0);
    const scaled = roundHalfEvenScaled(Math.abs(x), digits);
    const unit = 10n ** BigInt(digits);
    const whole = (scaled / unit).toString();
    const fraction = digits === 0 ? "" : `.${(scaled % unit).toString().padStart(digits, "0")}`;
    body = `${negative ? "-" : ""}${whole}${fraction}`;
  }
  return body.length >= width ? body : " ".repeat(width - body.length) + body;
}

/** round(x · 10^digits) with ties to even, computed on the exact value of the double x ≥ 0. */
function roundHalfEvenScaled(x: number, digits: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  const fractionBits = bits & (TWO_52 - 1n);
  // x = mantissa · 2^exponent exactly
  const mantissa = exponentBits === 0 ? fractionBits : fractionBits | TWO_52;
  const exponent = (exponentBits === 0 ? 1 : exponentBits) - 1075;
  const numerator = mantissa * 10n ** BigInt(digits);
  if (exponent >= 0) return numerator << BigInt(exponent);
  const denominator = 1n << BigInt(-exponent);
  const quotient = numerator / denominator;
  const twiceRemainder = 2n * (numerator - quotient * denominator);
  if (twiceRemainder > denominator) return quotient + 1n;
  if (twiceRemainder === denominator && (quotient & 1n) === 1n) return quotient + 1n;
  return quotient;
}

/** Length of a string in UTF-8 bytes (what Perl counts for a byte string). */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** `%<width>s` (right-aligned) or `%-<width>s` (left-aligned) with Perl's byte-counting width. */
export function padBytes(s: string, width: number, leftAlign = false): string {
  const missing = width - utf8Length(s);
  if (missing <= 0) return s;
  return leftAlign ? s + " ".repeat(missing) : " ".repeat(missing) + s;
}

/** Perl's default `sort` order (bytewise on UTF-8, i.e. by code point). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** Perl `split(/delimiter/, line)`: leading empty fields kept, trailing ones dropped. */
export function perlSplit(line: string, delimiter: string | RegExp): string[] {
  const fields = line.split(delimiter);
  let end = fields.length;
  while (end > 0 && fields[end - 1] === "") end--;
  fields.length = end;
  return fields;
}

/** Perl's truthiness of a string. */
export function perlTrue(s: string): boolean {
  return s !== "" && s !== "0";
}
