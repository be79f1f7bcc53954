import { type Checkpoints, checkpoints, LagrangeError, seededRandom } from "@lagrange/core";
import { DELIMITER_TOKEN, readTokens } from "./corpus.js";
import {
  type CsrMatrix,
  gaussianFill,
  multiply,
  multiplyTransposed,
  orthonormalise,
  symmetricEigen,
} from "./linear-algebra.js";

export interface PpmiSvdOptions {
  /** Words occurring fewer times get no vector (as Brown's minCount; default 1). */
  readonly minCount?: number;
  /** The context words: this many of the most frequent kept words (default 10,000). */
  readonly contexts?: number;
  /** Co-occurrence within ±window tokens of the same sentence (default 2). */
  readonly window?: number;
  /** Context-distribution smoothing: contexts weigh count^alpha (Levy et al. 2015; default 0.75). */
  readonly alpha?: number;
  /** Dimensions kept (default 100; fewer where the matrix has fewer rows or columns). */
  readonly dims?: number;
  /** Extra random directions of the range finder (default 10). */
  readonly oversampling?: number;
  /** Power iterations of the range finder (default 2). */
  readonly powerIterations?: number;
  /** Seeds the Gaussian test matrix (default 1). */
  readonly seed?: number;
  readonly signal?: AbortSignal;
  /** Sparse matrix products done of all (2 · powerIterations + 2), every few tens of milliseconds. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Vectors of the words of a text, one row each. */
export interface WordVectors {
  /** Word types kept, most frequent first (equal counts: first occurrence first). */
  readonly words: readonly string[];
  readonly counts: Int32Array;
  readonly dims: number;
  /** words.length × dims, row-major: U·Σ^½ per word, L2-normalised (a word without contexts: 0). */
  readonly values: Float32Array;
  /** The largest singular values of the PPMI matrix, decreasing. */
  readonly singularValues: Float64Array;
  /** Tokens read (rare words included, sentence ends not). */
  readonly tokens: number;
  /** Context words (columns of the PPMI matrix) and its nonzero entries. */
  readonly contexts: number;
  readonly nonZeros: number;
}

export const PPMI_SVD_DEFAULTS = {
  minCount: 1,
  contexts: 10_000,
  window: 2,
  alpha: 0.75,
  dims: 100,
  oversampling: 10,
  powerIterations: 2,
  seed: 1,
} as const;

function positiveInteger(value: number, name: string, least = 1): number {
  if (!Number.isSafeInteger(value) || value < least) {
    throw new LagrangeError(
      "invalid-problem",
      `${name}: expected an integer ≥ ${least}, got ${value}`,
    );
  }
  return value;
}

/** Word–context co-occurrence counts: rows are the kept words by rank, columns the first ranks. */
export interface Cooccurrence {
  readonly words: readonly string[];
  readonly counts: Int32Array;
  readonly tokens: number;
  /** Raw pair counts in compressed rows. */
  readonly matrix: CsrMatrix;
}

async function* delimited(
  sentences: Iterable<readonly string[]> | AsyncIterable<readonly string[]>,
): AsyncIterable<readonly string[]> {
  for await (const tokens of sentences as AsyncIterable<readonly string[]>) {
    yield [...tokens, DELIMITER_TOKEN];
  }
}

/**
 * Counts each (word, context) pair of tokens at most `window` apart in one sentence, both ways
 * (a symmetric window), where the word is kept (count ≥ minCount) and the context is among the
 * `contexts` most frequent kept words. Rare words keep their place: they count in the distance.
 */
export async function cooccurrence(
  sentences: Iterable<readonly string[]> | AsyncIterable<readonly string[]>,
  options: { minCount: number; contexts: number; window: number },
  pace: Checkpoints = checkpoints(),
): Promise<Cooccurrence> {
  const { stream } = await readTokens(delimited(sentences), pace);
  const { ids, length, types } = stream;
  const delimiter = types.indexOf(DELIMITER_TOKEN);
  const typeCount = new Int32Array(types.length);
  for (let i = 0; i < length; i++) typeCount[ids[i]!]!++;
  const kept: number[] = [];
  for (let id = 0; id < types.length; id++) {
    if (id !== delimiter && typeCount[id]! >= options.minCount) kept.push(id);
  }
  // Ids are in first-occurrence order, so id order breaks equal counts.
  kept.sort((a, b) => typeCount[b]! - typeCount[a]! || a - b);
  const N = kept.length;
  const C = Math.min(options.contexts, N);
  // rank of each position's token, −1 for a rare word, −2 for a sentence end.
  const rankOf = new Int32Array(types.length).fill(-1);
  if (delimiter >= 0) rankOf[delimiter] = -2;
  const words = new Array<string>(N);
  const counts = new Int32Array(N);
  for (let r = 0; r < N; r++) {
    rankOf[kept[r]!] = r;
    words[r] = types[kept[r]!]!;
    counts[r] = typeCount[kept[r]!]!;
  }
  const rank = new Int32Array(length);
  for (let p = 0; p < length; p++) rank[p] = rankOf[ids[p]!]!;
  const w = options.window;
  // Pass 1: entries per row; pass 2: their columns; then sort each row and compress.
  const perRow = new Int32Array(N + 1);
  const visit = (emit: (row: number, column: number) => void) => {
    for (let p = 0; p < length; p++) {
      const a = rank[p]!;
      if (a === -2) continue;
      for (let q = p + 1; q <= p + w && q < length; q++) {
        const b = rank[q]!;
        if (b === -2) break;
        if (a < 0 || b < 0) continue;
        if (b < C) emit(a, b);
        if (a < C) emit(b, a);
      }
    }
  };
  visit((row) => perRow[row + 1]!++);
  for (let r = 0; r < N; r++) perRow[r + 1]! += perRow[r]!;
  if (pace.due()) await pace.pause();
  const columns = new Int32Array(perRow[N]!);
  const fill = perRow.slice(0, N);
  visit((row, column) => {
    columns[fill[row]!++] = column;
  });
  if (pace.due()) await pace.pause();
  const rowStart = new Int32Array(N + 1);
  let distinct = 0;
  for (let r = 0; r < N; r++) {
    const segment = columns.subarray(perRow[r]!, perRow[r + 1]!);
    segment.sort();
    for (let j = 0; j < segment.length; j++) {
      if (j === 0 || segment[j] !== segment[j - 1]) distinct++;
    }
    rowStart[r + 1] = distinct;
    if ((r & 1023) === 0 && pace.due()) await pace.pause();
  }
  const column = new Int32Array(distinct);
  const value = new Float64Array(distinct);
  let k = -1;
  for (let r = 0; r < N; r++) {
    for (let j = perRow[r]!; j < perRow[r + 1]!; j++) {
      if (j === perRow[r] || columns[j] !== columns[j - 1]) column[++k] = columns[j]!;
      value[k]!++;
    }
  }
  const tokens = length - (delimiter < 0 ? 0 : typeCount[delimiter]!);
  return {
    words,
    counts,
    tokens,
    matrix: { rows: N, columns: C, rowStart, column, value },
  };
}

/**
 * Positive PMI with context-distribution smoothing (Levy, Goldberg & Dagan 2015):
 * max(0, log(P(w,c) / (P(w) · P_α(c)))) with P_α(c) = n(c)^α / Σ n(c')^α, the marginals read
 * off the counts; entries ≤ 0 are dropped.
 */
export function positivePmi(counts: CsrMatrix, alpha: number): CsrMatrix {
  const { rows, columns, rowStart, column, value } = counts;
  const rowSum = new Float64Array(rows);
  const columnWeight = new Float64Array(columns);
  for (let i = 0; i < rows; i++) {
    for (let e = rowStart[i]!; e < rowStart[i + 1]!; e++) {
      rowSum[i]! += value[e]!;
      columnWeight[column[e]!]! += value[e]!;
    }
  }
  let z = 0;
  for (let j = 0; j < columns; j++) {
    columnWeight[j] = columnWeight[j]! ** alpha;
    z += columnWeight[j]!;
  }
  const start = new Int32Array(rows + 1);
  const keptColumn = new Int32Array(value.length);
  const keptValue = new Float64Array(value.length);
  let n = 0;
  for (let i = 0; i < rows; i++) {
    for (let e = rowStart[i]!; e < rowStart[i + 1]!; e++) {
      const pmi = Math.log((value[e]! * z) / (rowSum[i]! * columnWeight[column[e]!]!));
      if (pmi > 0) {
        keptColumn[n] = column[e]!;
        keptValue[n++] = pmi;
      }
    }
    start[i + 1] = n;
  }
  return {
    rows,
    columns,
    rowStart: start,
    column: keptColumn.slice(0, n),
    value: keptValue.slice(0, n),
  };
}

/**
 * The leading `rank` singular values and left singular vectors of a sparse matrix by the
 * randomized range finder of Halko, Martinsson & Tropp (2011, Alg. 4.4 then 5.1): a Gaussian test
 * matrix of rank + oversampling columns, power iterations re-orthonormalised each half step, then
 * B = Qᵀ·A and the eigendecomposition of the small B·Bᵀ (its eigenvalues are σ², its eigenvectors
 * rotate Q into U).
 */
export async function randomizedSvd(
  a: CsrMatrix,
  rank: number,
  options: { oversampling: number; powerIterations: number; seed: number },
  pace: Checkpoints = checkpoints(),
  onProgress?: (done: number, total: number) => void,
): Promise<{ rank: number; u: Float64Array; singularValues: Float64Array }> {
  const m = a.rows;
  const n = a.columns;
  const d = Math.min(rank, m, n);
  const l = Math.min(d + options.oversampling, m, n);
  const total = 2 * options.powerIterations + 2;
  let done = 0;
  const step = async () => {
    done++;
    onProgress?.(done, total);
    if (pace.due()) await pace.pause();
  };
  const dots = new Float64Array(l);
  const omega = new Float64Array(n * l);
  gaussianFill(omega, seededRandom(options.seed));
  const y = new Float64Array(m * l);
  await multiply(a, omega, y, l, pace);
  orthonormalise(y, m, l, dots);
  await step();
  const z = omega;
  for (let q = 0; q < options.powerIterations; q++) {
    await multiplyTransposed(a, y, z, l, pace);
    orthonormalise(z, n, l, dots);
    await step();
    await multiply(a, z, y, l, pace);
    orthonormalise(y, m, l, dots);
    await step();
  }
  // Bᵀ = Aᵀ·Q (n × l), then B·Bᵀ = Σ_j Bᵀ[j]ᵀ·Bᵀ[j].
  await multiplyTransposed(a, y, z, l, pace);
  await step();
  const g = new Float64Array(l * l);
  for (let j = 0; j < n; j++) {
    const o = j * l;
    for (let p = 0; p < l; p++) {
      const x = z[o + p]!;
      if (x === 0) continue;
      for (let q = p; q < l; q++) g[p * l + q]! += x * z[o + q]!;
    }
  }
  for (let p = 0; p < l; p++) for (let q = 0; q < p; q++) g[p * l + q] = g[q * l + p]!;
  const eigen = symmetricEigen(g, l);
  const singularValues = Float64Array.from(eigen.values.subarray(0, d), (x) =>
    Math.sqrt(Math.max(0, x)),
  );
  // U = Q·W, the first d columns.
  const u = new Float64Array(m * d);
  for (let i = 0; i < m; i++) {
    const qo = i * l;
    const uo = i * d;
    for (let c = 0; c < l; c++) {
      const x = y[qo + c]!;
      if (x === 0) continue;
      const wo = c * l;
      for (let r = 0; r < d; r++) u[uo + r]! += x * eigen.vectors[wo + r]!;
    }
    if ((i & 1023) === 0 && pace.due()) await pace.pause();
  }
  return { rank: d, u, singularValues };
}

/**
 * Word vectors from raw text by PPMI and a truncated SVD (Levy, Goldberg & Dagan 2015's
 * recipe): co-occurrence counts in a symmetric window over the most frequent context words,
 * positive PMI with smoothed contexts, the leading singular vectors by a randomized SVD, each
 * word's row U·Σ^½ scaled to unit length (cosine is then a dot product).
 */
export async function ppmiSvdVectors(
  sentences: Iterable<readonly string[]> | AsyncIterable<readonly string[]>,
  options: PpmiSvdOptions = {},
): Promise<WordVectors> {
  const o = { ...PPMI_SVD_DEFAULTS, ...options };
  positiveInteger(o.minCount, "minCount");
  positiveInteger(o.contexts, "contexts");
  positiveInteger(o.window, "window");
  positiveInteger(o.dims, "dims");
  positiveInteger(o.oversampling, "oversampling", 0);
  positiveInteger(o.powerIterations, "powerIterations", 0);
  if (!(o.alpha > 0 && o.alpha <= 1)) {
    throw new LagrangeError(
      "invalid-problem",
      `alpha: expected a number in (0, 1], got ${o.alpha}`,
    );
  }
  const pace = checkpoints(options.signal);
  const counted = await cooccurrence(sentences, o, pace);
  const ppmi = positivePmi(counted.matrix, o.alpha);
  const svd = await randomizedSvd(ppmi, o.dims, o, pace, options.onProgress);
  const d = svd.rank;
  const values = new Float32Array(ppmi.rows * d);
  const weight = Float64Array.from(svd.singularValues, Math.sqrt);
  for (let i = 0; i < ppmi.rows; i++) {
    let norm = 0;
    for (let r = 0; r < d; r++) norm += (svd.u[i * d + r]! * weight[r]!) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let r = 0; r < d; r++) values[i * d + r] = svd.u[i * d + r]! * weight[r]! * scale;
  }
  return {
    words: counted.words,
    counts: counted.counts,
    dims: d,
    values,
    singularValues: svd.singularValues,
    tokens: counted.tokens,
    contexts: ppmi.columns,
    nonZeros: ppmi.value.length,
  };
}
