/**
 * The few numerical kernels the PPMI-SVD vectors need, on flat typed arrays. Written here rather
 * than taken from npm: no kept package does a truncated SVD of a sparse matrix in Node and the
 * browser alike (ml-matrix's SVD is dense, and a 30,000 × 10,000 PPMI matrix is 2.4 GB dense),
 * and the dense packages allocate a matrix object per step where these loops reuse their arrays.
 */
import type { Checkpoints } from "@lagrange/core";

/** A sparse matrix in compressed rows: row i's entries are `rowStart[i] .. rowStart[i+1]`. */
export interface CsrMatrix {
  readonly rows: number;
  readonly columns: number;
  readonly rowStart: Int32Array;
  readonly column: Int32Array;
  readonly value: Float64Array;
}

/** Y (rows × width, row-major) = A · X (X columns × width, row-major). */
export async function multiply(
  a: CsrMatrix,
  x: Float64Array,
  y: Float64Array,
  width: number,
  pace: Checkpoints,
): Promise<void> {
  y.fill(0);
  for (let i = 0; i < a.rows; i++) {
    const yo = i * width;
    for (let e = a.rowStart[i]!; e < a.rowStart[i + 1]!; e++) {
      const v = a.value[e]!;
      const xo = a.column[e]! * width;
      for (let c = 0; c < width; c++) y[yo + c]! += v * x[xo + c]!;
    }
    if ((i & 1023) === 0 && pace.due()) await pace.pause();
  }
}

/** Z (columns × width, row-major) = Aᵀ · Q (Q rows × width, row-major). */
export async function multiplyTransposed(
  a: CsrMatrix,
  q: Float64Array,
  z: Float64Array,
  width: number,
  pace: Checkpoints,
): Promise<void> {
  z.fill(0);
  for (let i = 0; i < a.rows; i++) {
    const qo = i * width;
    for (let e = a.rowStart[i]!; e < a.rowStart[i + 1]!; e++) {
      const v = a.value[e]!;
      const zo = a.column[e]! * width;
      for (let c = 0; c < width; c++) z[zo + c]! += v * q[qo + c]!;
    }
    if ((i & 1023) === 0 && pace.due()) await pace.pause();
  }
}

/**
 * Orthonormalises the columns of M (n × width, row-major) in place: classical Gram–Schmidt run
 * twice per column ("twice is enough", Giraud et al. 2005), which stays orthogonal to rounding
 * even on the ill-conditioned blocks power iterations make, with row-contiguous passes. A column
 * that falls into the span of the ones before it becomes zero. `dots` holds ≥ width entries.
 */
export function orthonormalise(
  m: Float64Array,
  n: number,
  width: number,
  dots: Float64Array,
): void {
  for (let k = 0; k < width; k++) {
    let before = 0;
    for (let i = 0; i < n; i++) before += m[i * width + k]! ** 2;
    for (let pass = 0; pass < 2 && k > 0; pass++) {
      dots.fill(0, 0, k);
      for (let i = 0; i < n; i++) {
        const base = i * width;
        const x = m[base + k]!;
        if (x === 0) continue;
        for (let c = 0; c < k; c++) dots[c]! += m[base + c]! * x;
      }
      for (let i = 0; i < n; i++) {
        const base = i * width;
        let s = 0;
        for (let c = 0; c < k; c++) s += m[base + c]! * dots[c]!;
        m[base + k]! -= s;
      }
    }
    let after = 0;
    for (let i = 0; i < n; i++) after += m[i * width + k]! ** 2;
    const scale = after > 1e-24 * before && after > 0 ? 1 / Math.sqrt(after) : 0;
    for (let i = 0; i < n; i++) m[i * width + k]! *= scale;
  }
}

/**
 * Eigenvalues and eigenvectors of a symmetric n × n matrix (row-major; destroyed) by cyclic
 * Jacobi rotations, accurate to rounding for the small matrices it is given (n ≈ 100). Returns
 * the eigenvalues in decreasing order and the eigenvectors as the columns of `vectors` (n × n,
 * row-major) in the same order.
 */
export function symmetricEigen(
  matrix: Float64Array,
  n: number,
): { values: Float64Array; vectors: Float64Array } {
  const a = matrix;
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  let scale = 0;
  for (let i = 0; i < n * n; i++) scale += a[i]! ** 2;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off <= 1e-30 * scale) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (apq === 0) continue;
        const app = a[p * n + p]!;
        const aqq = a[q * n + q]!;
        // The rotation that zeroes (p, q) (Golub & Van Loan, Alg. 8.5.1).
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (x, y) => a[y * n + y]! - a[x * n + x]! || x - y,
  );
  const values = Float64Array.from(order, (i) => a[i * n + i]!);
  const vectors = new Float64Array(n * n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) vectors[r * n + c] = v[r * n + order[c]!]!;
  }
  return { values, vectors };
}

/** Fills `out` with standard normal draws (Box–Muller over a uniform source). */
export function gaussianFill(out: Float64Array, uniform: () => number): void {
  for (let i = 0; i < out.length; i += 2) {
    const u = 1 - uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    const phi = 2 * Math.PI * uniform();
    out[i] = r * Math.cos(phi);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(phi);
  }
}
