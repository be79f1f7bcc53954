import {
  defineSlave,
  ProblemValidationError,
  type SlaveBinding,
  type SlaveResult,
} from "@lagrange/core";
import type { PatternFactor } from "@lagrange/core/factor-graph";
import { checkLabelCount, checkPatternFactor } from "./pattern-checks.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * The slave of one higher-order pattern factor (the naive DD baseline's slave per pair of
 * identical multi-word phrases, qian-liu2014 §4.1.4): it labels the factor's variables, in order,
 * maximising Σ_j adjustment[j·L + y_j] + φ(y), where φ(y) is the score of pattern y when listed
 * and `defaultScore` otherwise.
 *
 * Without enumerating L^arity assignments: each listed pattern is scored directly, and the best
 * unlisted assignment is the first unlisted one in a best-first enumeration of assignments by
 * decreasing Σ adjustment. With P listed patterns it pops at most P + 1 assignments, and none of
 * them uses a label ranked below P at any position (P + 1 better choices there would include an
 * unlisted one), so each position keeps only its top min(L, P + 1) labels. Every buffer, the heap
 * included, is sized for that bound once, so `maximize` allocates nothing; its result and labels
 * are reused by the next call.
 */
export function phrasePairSlave(
  factor: PatternFactor,
  L: number,
  name = "phrase-pair",
): SlaveBinding {
  checkLabelCount(L, name);
  checkPatternFactor(factor, L, name);
  const { variables, patterns, scores, defaultScore } = factor;
  const k = variables.length;
  const P = scores.length;

  // Open addressing at load ≤ 1/2: membership tests on candidate assignments allocate nothing,
  // unlike string keys.
  let capacity = 2;
  while (capacity < 2 * P) capacity *= 2;
  const mask = capacity - 1;
  const slot = new Int32Array(capacity).fill(-1);
  const hashOf = (y: ArrayLike<number>, offset: number): number => {
    let h = 0x811c9dc5 | 0;
    for (let j = 0; j < k; j++) h = Math.imul(h ^ y[offset + j]!, 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    return h & mask;
  };
  /** The listed pattern equal to y[offset..offset+k), or −1; with `insert`, claims the empty slot. */
  const lookup = (y: ArrayLike<number>, offset: number, insert = -1): number => {
    let h = hashOf(y, offset);
    for (;;) {
      const p = slot[h]!;
      if (p < 0) {
        if (insert >= 0) slot[h] = insert;
        return -1;
      }
      let equal = true;
      for (let j = 0; j < k; j++) {
        if (patterns[p * k + j] !== y[offset + j]) {
          equal = false;
          break;
        }
      }
      if (equal) return p;
      h = (h + 1) & mask;
    }
  };
  // checkPatternFactor refused duplicates, so every pattern claims a slot of its own.
  for (let p = 0; p < P; p++) lookup(patterns, p * k, p);

  const depth = Math.min(L, P + 1);
  const topLabel = new Int32Array(k * depth);
  const topValue = new Float64Array(k * depth);
  // Every pop but the last expands at most k children: P listed pops bound the states.
  const maxStates = 1 + P * k;
  const rank = new Int32Array(maxStates * k);
  const pivot = new Int32Array(maxStates);
  const stateValue = new Float64Array(maxStates);
  const heap = new Int32Array(maxStates);
  let heapSize = 0;
  const candidate = new Int32Array(k);
  const labels = new Int32Array(k);
  const result: { labels: Int32Array; value: number } = { labels, value: NEG_INF };

  // Equal values pop in creation order, so a call's answer does not depend on heap layout luck.
  const above = (s: number, t: number): boolean =>
    stateValue[s]! > stateValue[t]! || (stateValue[s] === stateValue[t] && s < t);
  const push = (s: number): void => {
    let i = heapSize++;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!above(s, heap[up]!)) break;
      heap[i] = heap[up]!;
      i = up;
    }
    heap[i] = s;
  };
  const pop = (): number => {
    const top = heap[0]!;
    const s = heap[--heapSize]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= heapSize) break;
      if (child + 1 < heapSize && above(heap[child + 1]!, heap[child]!)) child++;
      if (!above(heap[child]!, s)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = s;
    return top;
  };
  const sumOf = (s: number): number => {
    let total = 0;
    for (let j = 0; j < k; j++) total += topValue[j * depth + rank[s * k + j]!]!;
    return total;
  };

  const size = k * L;
  const maximize = (adjustment: Float64Array): SlaveResult => {
    if (adjustment.length !== size) {
      throw new ProblemValidationError(
        `${name}.adjustment`,
        `expected length n·L = ${size}, got ${adjustment.length}`,
      );
    }
    // Per position, the top `depth` labels by adjustment; ties keep the lower label first.
    for (let j = 0; j < k; j++) {
      const row = j * depth;
      let count = 0;
      for (let t = 0; t < L; t++) {
        const a = adjustment[j * L + t]!;
        let r: number;
        if (count < depth) r = count++;
        else if (a > topValue[row + depth - 1]!) r = depth - 1;
        else continue;
        while (r > 0 && topValue[row + r - 1]! < a) {
          topValue[row + r] = topValue[row + r - 1]!;
          topLabel[row + r] = topLabel[row + r - 1]!;
          r--;
        }
        topValue[row + r] = a;
        topLabel[row + r] = t;
      }
      labels[j] = topLabel[row]!;
    }

    let value = NEG_INF;
    if (defaultScore !== NEG_INF) {
      heapSize = 0;
      rank.fill(0, 0, k);
      pivot[0] = 0;
      stateValue[0] = sumOf(0);
      let states = 1;
      push(0);
      while (heapSize > 0) {
        const s = pop();
        const base = s * k;
        for (let j = 0; j < k; j++) candidate[j] = topLabel[j * depth + rank[base + j]!]!;
        if (lookup(candidate, 0) < 0) {
          value = stateValue[s]! + defaultScore;
          labels.set(candidate);
          break;
        }
        // Children bump one rank at or after the parent's pivot: every rank vector has exactly
        // one parent (lower its last non-zero rank), so none is enumerated twice.
        for (let j = pivot[s]!; j < k; j++) {
          if (rank[base + j]! + 1 >= depth) continue;
          const c = states++;
          rank.copyWithin(c * k, base, base + k);
          rank[c * k + j]!++;
          pivot[c] = j;
          stateValue[c] = sumOf(c);
          push(c);
        }
      }
    }

    for (let p = 0; p < P; p++) {
      let v = scores[p]!;
      for (let j = 0; j < k; j++) v += adjustment[j * L + patterns[p * k + j]!]!;
      if (v > value) {
        value = v;
        for (let j = 0; j < k; j++) labels[j] = patterns[p * k + j]!;
      }
    }
    result.value = value;
    return result;
  };

  const score = (y: ArrayLike<number>): number => {
    const p = lookup(y, 0);
    return p >= 0 ? scores[p]! : defaultScore;
  };

  return {
    slave: defineSlave({ name, n: k, L, maximize, score }),
    positions: Int32Array.from(variables),
  };
}
