import type { RuleFamily } from "./mining-options.js";

export interface RawStats {
  readonly support: number;
  readonly violations: number;
  readonly magnitude: number;
  /** The consequent's rate over every instance position, premise or not. */
  readonly baseRate: number;
}

/** The counters of one mining pass (K rule keys, D delimiters). */
export class Counts {
  // adjacency: positions p < n−1 with a at p; with a at p and b at p+1; b at p+1 for any p.
  readonly adjSupport: Float64Array;
  readonly adjBoth: Float64Array;
  readonly adjNext: Float64Array;
  adjPositions = 0;
  // precedence: a tokens; a tokens with no b strictly later; positions with a b strictly later.
  readonly precSupport: Float64Array;
  readonly precViolated: Float64Array;
  readonly precLater: Float64Array;
  precPositions = 0;
  // state change: per delimiter its inner occurrences, a before, b after, both; any inner position.
  readonly scSupport: Float64Array;
  readonly scBefore: Float64Array;
  readonly scAfter: Float64Array;
  readonly scBoth: Float64Array;
  readonly scAny: Float64Array;
  scPositions = 0;
  // begin–end: sentences starting with a; starting with a and ending with b; ending with b.
  readonly beSupport: Float64Array;
  readonly beBoth: Float64Array;
  readonly beEnd: Float64Array;
  beSentences = 0;
  // presence–precedence: a tokens at p ≥ 1; of those with a b before; Σ b tokens before; any p ≥ 1
  // with a b before.
  readonly ppSupport: Float64Array;
  readonly ppViolated: Float64Array;
  readonly ppMagnitude: Float64Array;
  readonly ppAnyBefore: Float64Array;
  ppPositions = 0;

  constructor(
    readonly K: number,
    readonly D: number,
  ) {
    const KK = K * K;
    this.adjSupport = new Float64Array(K);
    this.adjBoth = new Float64Array(KK);
    this.adjNext = new Float64Array(K);
    this.precSupport = new Float64Array(K);
    this.precViolated = new Float64Array(KK);
    this.precLater = new Float64Array(K);
    this.scSupport = new Float64Array(D);
    this.scBefore = new Float64Array(D * K);
    this.scAfter = new Float64Array(D * K);
    this.scBoth = new Float64Array(D * KK);
    this.scAny = new Float64Array(KK);
    this.beSupport = new Float64Array(K);
    this.beBoth = new Float64Array(KK);
    this.beEnd = new Float64Array(K);
    this.ppSupport = new Float64Array(K);
    this.ppViolated = new Float64Array(KK);
    this.ppMagnitude = new Float64Array(KK);
    this.ppAnyBefore = new Float64Array(K);
  }

  stats(family: Exclude<RuleFamily, "state-change">, a: number, b: number): RawStats {
    const ab = a * this.K + b;
    const rate = (count: number, total: number) => (total === 0 ? 0 : count / total);
    switch (family) {
      case "adjacency": {
        const support = this.adjSupport[a]!;
        const violations = support - this.adjBoth[ab]!;
        const baseRate = rate(this.adjNext[b]!, this.adjPositions);
        return { support, violations, magnitude: violations, baseRate };
      }
      case "precedence": {
        const violations = this.precViolated[ab]!;
        const baseRate = rate(this.precLater[b]!, this.precPositions);
        return { support: this.precSupport[a]!, violations, magnitude: violations, baseRate };
      }
      case "begin-end": {
        const support = this.beSupport[a]!;
        const violations = support - this.beBoth[ab]!;
        const baseRate = rate(this.beEnd[b]!, this.beSentences);
        return { support, violations, magnitude: violations, baseRate };
      }
      case "presence-precedence": {
        const baseRate = 1 - rate(this.ppAnyBefore[b]!, this.ppPositions);
        return {
          support: this.ppSupport[a]!,
          violations: this.ppViolated[ab]!,
          magnitude: this.ppMagnitude[ab]!,
          baseRate,
        };
      }
    }
  }

  stateChange(d: number, a: number, b: number): RawStats {
    const { K } = this;
    const support = this.scSupport[d]!;
    const both = this.scBoth[(d * K + a) * K + b]!;
    return {
      support,
      violations: support - both,
      // Each occurrence pays one per wrong side: 2·support − (a before) − (b after).
      magnitude: 2 * support - this.scBefore[d * K + a]! - this.scAfter[d * K + b]!,
      baseRate: this.scPositions === 0 ? 0 : this.scAny[a * K + b]! / this.scPositions,
    };
  }
}

export function countSentence(
  c: Counts,
  labels: ArrayLike<number>,
  words: readonly string[],
  keysOf: readonly Int32Array[],
  K: number,
  families: ReadonlySet<RuleFamily>,
  delimiterId: ReadonlyMap<string, number>,
  last: Int32Array,
  before: Int32Array,
): void {
  const n = labels.length;
  if (n === 0) return;
  const at = (p: number) => keysOf[labels[p]!]!;
  if (families.has("adjacency")) {
    c.adjPositions += n - 1;
    for (let p = 0; p + 1 < n; p++) {
      const here = at(p);
      const next = at(p + 1);
      for (const b of next) c.adjNext[b]!++;
      for (const a of here) {
        c.adjSupport[a]!++;
        for (const b of next) c.adjBoth[a * K + b]!++;
      }
    }
  }
  if (families.has("precedence")) {
    last.fill(-1);
    for (let p = 0; p < n; p++) for (const b of at(p)) last[b] = p;
    c.precPositions += n;
    for (let b = 0; b < K; b++) c.precLater[b]! += Math.max(0, last[b]!);
    for (let p = 0; p < n; p++) {
      for (const a of at(p)) {
        c.precSupport[a]!++;
        // Violated when no b lies strictly after p.
        for (let b = 0; b < K; b++) if (last[b]! <= p) c.precViolated[a * K + b]!++;
      }
    }
  }
  if (families.has("state-change")) {
    for (let p = 1; p + 1 < n; p++) {
      c.scPositions++;
      const prev = at(p - 1);
      const next = at(p + 1);
      for (const a of prev) for (const b of next) c.scAny[a * K + b]!++;
      const d = delimiterId.get(words[p]!);
      if (d === undefined) continue;
      c.scSupport[d]!++;
      for (const a of prev) c.scBefore[d * K + a]!++;
      for (const b of next) c.scAfter[d * K + b]!++;
      for (const a of prev) for (const b of next) c.scBoth[(d * K + a) * K + b]!++;
    }
  }
  if (families.has("begin-end")) {
    c.beSentences++;
    const end = at(n - 1);
    for (const b of end) c.beEnd[b]!++;
    for (const a of at(0)) {
      c.beSupport[a]!++;
      for (const b of end) c.beBoth[a * K + b]!++;
    }
  }
  if (families.has("presence-precedence")) {
    before.fill(0);
    for (let p = 0; p < n; p++) {
      if (p >= 1) {
        c.ppPositions++;
        for (let b = 0; b < K; b++) if (before[b]! > 0) c.ppAnyBefore[b]!++;
        for (const a of at(p)) {
          c.ppSupport[a]!++;
          for (let b = 0; b < K; b++) {
            const count = before[b]!;
            if (count === 0) continue;
            c.ppViolated[a * K + b]!++;
            c.ppMagnitude[a * K + b]! += count;
          }
        }
      }
      for (const b of at(p)) before[b]!++;
    }
  }
}
