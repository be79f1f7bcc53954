/**
 * out[outBase + r] = Σ_c m[mBase + r·L + c] · x[xBase + c] for r < L.
 * Four rows at a time: four independent accumulators hide the floating-point add latency that
 * bounds a single dot product (measured ~1.6× faster in V8 for L ≈ 20).
 */
export function matVec(
  m: Float64Array,
  mBase: number,
  x: Float64Array,
  xBase: number,
  out: Float64Array,
  outBase: number,
  L: number,
): void {
  let r = 0;
  for (; r + 3 < L; r += 4) {
    const r0 = mBase + r * L;
    const r1 = r0 + L;
    const r2 = r1 + L;
    const r3 = r2 + L;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    for (let c = 0; c < L; c++) {
      const xc = x[xBase + c]!;
      a0 += m[r0 + c]! * xc;
      a1 += m[r1 + c]! * xc;
      a2 += m[r2 + c]! * xc;
      a3 += m[r3 + c]! * xc;
    }
    out[outBase + r] = a0;
    out[outBase + r + 1] = a1;
    out[outBase + r + 2] = a2;
    out[outBase + r + 3] = a3;
  }
  if (r + 1 < L) {
    const r0 = mBase + r * L;
    const r1 = r0 + L;
    let a0 = 0;
    let a1 = 0;
    for (let c = 0; c < L; c++) {
      const xc = x[xBase + c]!;
      a0 += m[r0 + c]! * xc;
      a1 += m[r1 + c]! * xc;
    }
    out[outBase + r] = a0;
    out[outBase + r + 1] = a1;
    r += 2;
  }
  if (r < L) {
    const r0 = mBase + r * L;
    let a0 = 0;
    for (let c = 0; c < L; c++) a0 += m[r0 + c]! * x[xBase + c]!;
    out[outBase + r] = a0;
  }
}

/**
 * out[a·L + b] = Σ_{i<rows} left[i·L + a] · right[(i + shift)·L + b], times `weight[a·L + b]`:
 * the sum of outer products of two row sequences, four columns at a time.
 */
export function outerProductSum(
  left: Float64Array,
  right: Float64Array,
  shift: number,
  rows: number,
  L: number,
  weight: Float64Array,
  out: Float64Array,
): void {
  const rb = shift * L;
  for (let a = 0; a < L; a++) {
    let b = 0;
    for (; b + 3 < L; b += 4) {
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      for (let i = 0; i < rows; i++) {
        const l = left[i * L + a]!;
        const k = rb + i * L + b;
        a0 += l * right[k]!;
        a1 += l * right[k + 1]!;
        a2 += l * right[k + 2]!;
        a3 += l * right[k + 3]!;
      }
      const o = a * L + b;
      out[o] = a0 * weight[o]!;
      out[o + 1] = a1 * weight[o + 1]!;
      out[o + 2] = a2 * weight[o + 2]!;
      out[o + 3] = a3 * weight[o + 3]!;
    }
    for (; b < L; b++) {
      let a0 = 0;
      for (let i = 0; i < rows; i++) a0 += left[i * L + a]! * right[rb + i * L + b]!;
      out[a * L + b] = a0 * weight[a * L + b]!;
    }
  }
}
