import { ProblemValidationError } from "@lagrange/core";
import type { PatternFactor } from "@lagrange/core/factor-graph";
import { hasLetterOrDigit, isUrlToken, TWEET_STOPWORDS } from "./groups.js";

/**
 * Two identical, non-overlapping phrases of one group (qian-liu2014 §4.1.3): positions
 * `first..first+length−1` and `second..second+length−1` of the group's concatenated tokens, with
 * `first < second`. `kind` selects the feature family: 0 for words (the paper's skip edges,
 * k = 0), 1 for two-word phrases, 2 for longer ones.
 */
export interface ConsistencyFactor {
  readonly first: number;
  readonly second: number;
  readonly length: number;
  readonly kind: number;
}

export interface ConsistencyFactorOptions {
  /** Longest phrase linked; 3 by default. */
  readonly maxLength?: number;
  /**
   * Only the first this-many occurrences of a phrase in a group are linked (all pairs among
   * them), which bounds a phrase's factors at maxOccurrences·(maxOccurrences−1)/2.
   */
  readonly maxOccurrences?: number;
  /** Compared lower-cased; TWEET_STOPWORDS by default. */
  readonly stopwords?: ReadonlySet<string>;
  readonly caseSensitive?: boolean;
}

/** Feature families × {some label is an entity label, every label is the outside label}. */
export const CONSISTENCY_FEATURES = 6;

/**
 * Outside-only agreement ("O O" twice) is far more common and far less informative than entity
 * agreement, so it gets its own weight rather than sharing one with entity subsequences.
 */
export function consistencyFeature(kind: number, allOutside: boolean): number {
  return kind * 2 + (allOutside ? 1 : 0);
}

export function consistencyFeatureNames(): string[] {
  const names: string[] = [];
  for (const family of ["word", "phrase2", "phrase3+"]) {
    names.push(`${family}/entity`, `${family}/outside`);
  }
  return names;
}

function kindOfLength(length: number): number {
  return length === 1 ? 0 : length === 2 ? 1 : 2;
}

/**
 * The consistency factors of one group, ordered by `first`, then `second`, then `length`.
 *
 * A single word qualifies when it has a letter or digit, is not a stopword and is not a URL; a
 * longer phrase qualifies when its first and last tokens do (so "Bank of America" links, "of the"
 * does not). Phrases never cross a sentence boundary; `sentenceStarts` gives the offset of each
 * sentence in `tokens` (empty: one sentence). Two occurrences that overlap (a repeated phrase
 * shifted by less than its length, as in "ha ha ha") are not linked: a pattern factor needs
 * distinct variables.
 */
export function findConsistencyFactors(
  tokens: readonly string[],
  sentenceStarts: Int32Array,
  options: ConsistencyFactorOptions = {},
): ConsistencyFactor[] {
  const maxLength = options.maxLength ?? 3;
  const maxOccurrences = options.maxOccurrences ?? 10;
  const stopwords = options.stopwords ?? TWEET_STOPWORDS;
  const caseSensitive = options.caseSensitive ?? false;
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new ProblemValidationError(
      "options.maxLength",
      `expected an integer ≥ 1, got ${maxLength}`,
    );
  }
  if (!Number.isInteger(maxOccurrences) || maxOccurrences < 2) {
    throw new ProblemValidationError(
      "options.maxOccurrences",
      `expected an integer ≥ 2 (one occurrence links nothing), got ${maxOccurrences}`,
    );
  }
  const n = tokens.length;
  const sentenceEnd = sentenceEnds(n, sentenceStarts);
  const qualifies = new Uint8Array(n);
  const normal: string[] = new Array(n);
  for (let p = 0; p < n; p++) {
    const token = tokens[p]!;
    const lower = token.toLowerCase();
    normal[p] = caseSensitive ? token : lower;
    qualifies[p] = hasLetterOrDigit(lower) && !stopwords.has(lower) && !isUrlToken(token) ? 1 : 0;
  }

  const factors: ConsistencyFactor[] = [];
  for (let length = 1; length <= maxLength; length++) {
    const kind = kindOfLength(length);
    const occurrences = new Map<string, number[]>();
    for (let p = 0; p + length <= n; p++) {
      if (p + length > sentenceEnd[p]!) continue;
      if (qualifies[p] === 0 || qualifies[p + length - 1] === 0) continue;
      // U+0000 does not occur in tokens, so joined keys of one length cannot collide.
      const key = length === 1 ? normal[p]! : normal.slice(p, p + length).join("\u0000");
      let list = occurrences.get(key);
      if (list === undefined) {
        list = [];
        occurrences.set(key, list);
      }
      if (list.length < maxOccurrences) list.push(p);
    }
    for (const list of occurrences.values()) {
      for (let a = 0; a < list.length; a++) {
        for (let b = a + 1; b < list.length; b++) {
          if (list[b]! < list[a]! + length) continue;
          factors.push({ first: list[a]!, second: list[b]!, length, kind });
        }
      }
    }
  }
  factors.sort((x, y) => x.first - y.first || x.second - y.second || x.length - y.length);
  return factors;
}

/** Per position, the end (exclusive) of its sentence. */
function sentenceEnds(n: number, starts: Int32Array): Int32Array {
  const ends = new Int32Array(n).fill(n);
  if (starts.length === 0) return ends;
  if (n > 0 && starts[0] !== 0) {
    throw new ProblemValidationError(
      "sentenceStarts[0]",
      `expected 0 (the first sentence starts the group), got ${starts[0]}`,
    );
  }
  for (let s = 0; s < starts.length; s++) {
    const from = starts[s]!;
    const to = s + 1 < starts.length ? starts[s + 1]! : n;
    if (!(from <= to && to <= n)) {
      throw new ProblemValidationError(
        `sentenceStarts[${s + 1 < starts.length ? s + 1 : s}]`,
        `expected non-decreasing offsets within 0..${n}, got ${from} then ${to}`,
      );
    }
    ends.fill(to, from, to);
  }
  return ends;
}

/**
 * The label subsequences a consistency pattern may use, per length: `result[ℓ]` is the flat list
 * (count·ℓ, lexicographically sorted) of the distinct length-ℓ windows of the gold sequences, for
 * ℓ in 2..maxLength; `result[1]` is every label 0..L−1, and `result[0]` is empty. Restricting
 * longer patterns to subsequences seen in training keeps the factors sparse (§2.1): L^ℓ patterns
 * per factor would defeat the point of the pattern form.
 */
export function labelSubsequences(
  labelled: Iterable<ArrayLike<number>>,
  maxLength: number,
  L: number,
): Int32Array[] {
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new ProblemValidationError("maxLength", `expected an integer ≥ 1, got ${maxLength}`);
  }
  if (!Number.isInteger(L) || L < 1) {
    throw new ProblemValidationError("L", `expected an integer ≥ 1, got ${L}`);
  }
  const seen: Map<string, number[]>[] = [];
  for (let length = 0; length <= maxLength; length++) seen.push(new Map());
  let index = 0;
  for (const labels of labelled) {
    for (let i = 0; i < labels.length; i++) {
      const y = labels[i]!;
      if (!Number.isInteger(y) || y < 0 || y >= L) {
        throw new ProblemValidationError(
          `labelled[${index}][${i}]`,
          `expected a label id in 0..${L - 1}, got ${y}`,
        );
      }
    }
    for (let length = 2; length <= maxLength; length++) {
      const map = seen[length]!;
      for (let i = 0; i + length <= labels.length; i++) {
        const window = Array.from({ length }, (_, k) => labels[i + k]!);
        const key = window.join(",");
        if (!map.has(key)) map.set(key, window);
      }
    }
    index++;
  }
  const result: Int32Array[] = [new Int32Array(0), Int32Array.from({ length: L }, (_, y) => y)];
  for (let length = 2; length <= maxLength; length++) {
    const windows = [...seen[length]!.values()].sort(compareLexicographic);
    const flat = new Int32Array(windows.length * length);
    windows.forEach((w, k) => {
      flat.set(w, k * length);
    });
    result.push(flat);
  }
  return result;
}

function compareLexicographic(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < a.length; k++) {
    const d = a[k]! - b[k]!;
    if (d !== 0) return d;
  }
  return 0;
}

function isAllOutside(flat: Int32Array, from: number, length: number, outside: number): boolean {
  for (let k = 0; k < length; k++) if (flat[from + k] !== outside) return false;
  return true;
}

/**
 * The pattern factors of the consistency features under `weights` (one per feature, see
 * `consistencyFeature`): for each factor, variables are the first phrase then the second, and
 * each allowed label subsequence s of its length gives the pattern (s, s) scored by the weight of
 * its feature. Patterns of weight 0 are left out, as is a factor left with none; every other
 * assignment scores 0, so the sum of these factors is the consistency part of the model score.
 */
export function consistencyPatterns(
  factors: readonly ConsistencyFactor[],
  subsequences: readonly Int32Array[],
  weights: Float64Array,
  outsideLabel: number,
): PatternFactor[] {
  if (weights.length !== CONSISTENCY_FEATURES) {
    throw new ProblemValidationError(
      "weights",
      `expected ${CONSISTENCY_FEATURES} weights, got ${weights.length}`,
    );
  }
  const result: PatternFactor[] = [];
  for (const factor of factors) {
    const { first, second, length, kind } = factor;
    const subs = subsequences[length];
    if (subs === undefined) continue;
    const count = subs.length / length;
    const kept: number[] = [];
    const scores: number[] = [];
    for (let p = 0; p < count; p++) {
      const w =
        weights[consistencyFeature(kind, isAllOutside(subs, p * length, length, outsideLabel))]!;
      if (w === 0) continue;
      kept.push(p);
      scores.push(w);
    }
    if (kept.length === 0) continue;
    const arity = 2 * length;
    const variables = new Int32Array(arity);
    for (let k = 0; k < length; k++) {
      variables[k] = first + k;
      variables[length + k] = second + k;
    }
    const patterns = new Int32Array(kept.length * arity);
    kept.forEach((p, row) => {
      const s = subs.subarray(p * length, (p + 1) * length);
      patterns.set(s, row * arity);
      patterns.set(s, row * arity + length);
    });
    result.push({
      kind: "pattern",
      variables,
      patterns,
      scores: Float64Array.from(scores),
      defaultScore: 0,
    });
  }
  return result;
}

/**
 * Adds the consistency feature vector of `labels` (one label per group position) to `out`: a
 * factor fires when both phrases carry the same label subsequence and that subsequence is one of
 * `subsequences[length]`. This is exactly the gradient of the score of `consistencyPatterns`
 * with respect to its weights, which is what training needs.
 */
export function consistencyFeatureCounts(
  factors: readonly ConsistencyFactor[],
  subsequences: readonly Int32Array[],
  labels: ArrayLike<number>,
  outsideLabel: number,
  out: Float64Array,
): void {
  if (out.length < CONSISTENCY_FEATURES) {
    throw new ProblemValidationError(
      "out",
      `expected length ≥ ${CONSISTENCY_FEATURES}, got ${out.length}`,
    );
  }
  for (const { first, second, length, kind } of factors) {
    let same = true;
    let allOutside = true;
    for (let k = 0; k < length; k++) {
      const y = labels[first + k]!;
      if (y !== labels[second + k]) {
        same = false;
        break;
      }
      if (y !== outsideLabel) allOutside = false;
    }
    if (!same) continue;
    const subs = subsequences[length];
    if (subs === undefined || !containsWindow(subs, length, labels, first)) continue;
    out[consistencyFeature(kind, allOutside)]! += 1;
  }
}

/** Binary search of `labels[from..from+length)` among the sorted flat windows of `flat`. */
function containsWindow(
  flat: Int32Array,
  length: number,
  labels: ArrayLike<number>,
  from: number,
): boolean {
  let lo = 0;
  let hi = flat.length / length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    let cmp = 0;
    for (let k = 0; k < length && cmp === 0; k++) cmp = flat[mid * length + k]! - labels[from + k]!;
    if (cmp === 0) return true;
    if (cmp < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}
