import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ArcHybridState, REDUCE_LEFT, REDUCE_RIGHT, SHIFT } from "./arc-hybrid.js";
import { correctArcs, DynamicOracle, GoldTree, isProjectiveTree, staticOracle } from "./oracle.js";

/**
 * Ground truth by exhaustive search: the most gold arcs any completion of `state` adds, over
 * every sequence of valid transitions (memoised by stack and buffer front, which is all the
 * future depends on).
 */
function bruteFuture(state: ArcHybridState, gold: GoldTree): number {
  const memo = new Map<string, number>();
  const visit = (s: ArcHybridState): number => {
    if (s.isTerminal()) return 0;
    const key = `${Array.from(s.stack.subarray(0, s.depth)).join(",")}|${s.front}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let best = -1;
    for (const action of [SHIFT, REDUCE_LEFT, REDUCE_RIGHT]) {
      if (!s.isValid(action)) continue;
      const next = s.clone();
      const dependent = next.apply(action);
      const gain = dependent >= 0 && next.heads[dependent] === gold.heads[dependent] ? 1 : 0;
      best = Math.max(best, gain + visit(next));
    }
    memo.set(key, best);
    return best;
  };
  return visit(state);
}

/** Least number of wrong heads over all completions of `state`. */
function bruteMinLoss(state: ArcHybridState, gold: GoldTree): number {
  return gold.n - correctArcs(state, gold) - bruteFuture(state, gold);
}

/** Exact costs by exhaustive search: min loss after the action − min loss now (+∞ if invalid). */
function bruteCosts(state: ArcHybridState, gold: GoldTree): number[] {
  const now = bruteMinLoss(state, gold);
  return [SHIFT, REDUCE_LEFT, REDUCE_RIGHT].map((action) => {
    if (!state.isValid(action)) return Infinity;
    const next = state.clone();
    next.apply(action);
    return bruteMinLoss(next, gold) - now;
  });
}

/**
 * A random tree over words 1…n: words join in a random order, each under ROOT or under a word
 * that joined before it — every rooted tree (projective or not, one or several root children)
 * has a chance.
 */
const treeArbitrary = (maxWords: number) =>
  fc
    .integer({ min: 1, max: maxWords })
    .chain((n) =>
      fc.tuple(
        fc.shuffledSubarray(
          Array.from({ length: n }, (_, i) => i + 1),
          { minLength: n, maxLength: n },
        ),
        fc.array(fc.nat(), { minLength: n, maxLength: n }),
      ),
    )
    .map(([order, picks]) => {
      const heads = new Array<number>(order.length);
      order.forEach((word, k) => {
        const choice = picks[k]! % (k + 1); // 0: ROOT, else one of the k earlier words
        heads[word - 1] = choice === 0 ? 0 : order[choice - 1]!;
      });
      return heads;
    });

/** A configuration reached from the start by a random valid prefix. */
function reach(n: number, choices: readonly number[]): ArcHybridState {
  const state = new ArcHybridState().reset(n);
  const valid: number[] = [];
  for (const c of choices) {
    if (state.isTerminal()) break;
    state.validActions(valid);
    state.apply(valid[c % valid.length]!);
  }
  return state;
}

const instance = (maxWords: number) =>
  fc.tuple(treeArbitrary(maxWords), fc.array(fc.nat(), { maxLength: 2 * maxWords }));

const projective = (heads: number[]): boolean => new GoldTree(heads).projective;

/** Every rooted tree over words 1…n (heads in output form). */
function allTrees(n: number): number[][] {
  const trees: number[][] = [];
  const heads = new Array<number>(n).fill(0);
  const visit = (w: number): void => {
    if (w > n) {
      if (isProjectiveTree(Int32Array.from([-1, ...heads])) || isTree(heads))
        trees.push([...heads]);
      return;
    }
    for (let h = 0; h <= n; h++) {
      if (h === w) continue;
      heads[w - 1] = h;
      visit(w + 1);
    }
  };
  visit(1);
  return trees;
}

function isTree(heads: number[]): boolean {
  return heads.every((_, i) => {
    let h = i + 1;
    for (let steps = 0; h !== 0; steps++) {
      if (steps > heads.length) return false;
      h = heads[h - 1]!;
    }
    return true;
  });
}

/** Every configuration reachable from the start of an n-word sentence. */
function allConfigurations(n: number): ArcHybridState[] {
  const out: ArcHybridState[] = [];
  const visit = (state: ArcHybridState): void => {
    out.push(state);
    for (const action of [SHIFT, REDUCE_LEFT, REDUCE_RIGHT]) {
      if (!state.isValid(action)) continue;
      const next = state.clone();
      next.apply(action);
      visit(next);
    }
  };
  visit(new ArcHybridState().reset(n));
  return out;
}

describe("dynamic oracle exactness (brute force over action sequences)", () => {
  it("the random trees cover both projective and non-projective ones", () => {
    const trees = fc.sample(treeArbitrary(7), { numRuns: 400, seed: 7 });
    const share = trees.filter(projective).length / trees.length;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.85);
  });

  it("on projective gold trees, Goldberg & Nivre's arc-decomposition costs are the exact costs", () => {
    const oracle = new DynamicOracle("arc-decomposition");
    fc.assert(
      fc.property(
        instance(7).filter(([heads]) => projective(heads)),
        ([heads, choices]) => {
          const gold = new GoldTree(heads);
          const state = reach(gold.n, choices);
          expect(oracle.costs(state, gold, [])).toEqual(bruteCosts(state, gold));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("on non-projective gold trees, the default oracle's costs are exact too (dynamic programming)", () => {
    const oracle = new DynamicOracle();
    fc.assert(
      fc.property(
        instance(7).filter(([heads]) => !projective(heads)),
        ([heads, choices]) => {
          const gold = new GoldTree(heads);
          const state = reach(gold.n, choices);
          expect(oracle.costs(state, gold, [])).toEqual(bruteCosts(state, gold));
          expect(oracle.minLoss(state, gold)).toBe(bruteMinLoss(state, gold));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("the dynamic programme agrees with brute force on every tree, one oracle reused across trees and states", () => {
    const oracle = new DynamicOracle("exact");
    fc.assert(
      fc.property(fc.array(instance(6), { minLength: 1, maxLength: 4 }), (instances) => {
        for (const [heads, choices] of instances) {
          const gold = new GoldTree(heads);
          // Every prefix of the path, so the per-level cache sees pushes and pops in order.
          for (let k = 0; k <= choices.length; k++) {
            const state = reach(gold.n, choices.slice(0, k));
            expect(oracle.costs(state, gold, [])).toEqual(bruteCosts(state, gold));
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("arc decomposition alone is not exact on non-projective trees (why the oracle switches)", () => {
    // Crossing gold arcs 3 → 1 and 2 → 4: each is reachable on its own, never both.
    const crossing = new GoldTree([3, 0, 2, 2]);
    expect(crossing.projective).toBe(false);
    expect(new DynamicOracle().minLoss(new ArcHybridState().reset(4), crossing)).toBe(1);

    // Every non-projective tree of ≤ 4 words, every reachable configuration.
    const decomposed = new DynamicOracle("arc-decomposition");
    const exact = new DynamicOracle();
    let configurations = 0;
    let wrong = 0;
    for (const heads of allTrees(4)) {
      const gold = new GoldTree(heads);
      if (gold.projective) continue;
      for (const state of allConfigurations(gold.n)) {
        const truth = bruteCosts(state, gold);
        expect(exact.costs(state, gold, [])).toEqual(truth);
        const approximate = decomposed.costs(state, gold, []);
        configurations++;
        if (approximate.some((c, a) => c !== truth[a])) wrong++;
      }
    }
    expect(configurations).toBeGreaterThan(100);
    expect(wrong).toBeGreaterThan(0);
  });

  it("following zero-cost transitions from any reachable configuration ends at the least reachable loss", () => {
    const oracle = new DynamicOracle();
    fc.assert(
      fc.property(instance(7), fc.nat(), ([heads, choices], tieBreak) => {
        const gold = new GoldTree(heads);
        const state = reach(gold.n, choices);
        const best = bruteMinLoss(state, gold);
        const costs: number[] = [];
        let total = 0;
        for (let step = 0; !state.isTerminal(); step++) {
          oracle.costs(state, gold, costs);
          const zero = [SHIFT, REDUCE_LEFT, REDUCE_RIGHT].filter((a) => costs[a] === 0);
          expect(zero.length).toBeGreaterThan(0);
          const action = zero[(tieBreak + step) % zero.length]!;
          total += costs[action]!;
          state.apply(action);
        }
        expect(gold.n - correctArcs(state, gold)).toBe(best);
        expect(total).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it("from the start, the static and the dynamic oracle rebuild a projective gold tree exactly", () => {
    const oracle = new DynamicOracle();
    fc.assert(
      fc.property(treeArbitrary(12).filter(projective), fc.nat(), (heads, tieBreak) => {
        const gold = new GoldTree(heads);
        const byStatic = new ArcHybridState().reset(gold.n);
        while (!byStatic.isTerminal()) byStatic.apply(staticOracle(byStatic, gold));
        expect(Array.from(byStatic.headsOut())).toEqual(heads);

        const byDynamic = new ArcHybridState().reset(gold.n);
        const costs: number[] = [];
        for (let step = 0; !byDynamic.isTerminal(); step++) {
          oracle.costs(byDynamic, gold, costs);
          const zero = [SHIFT, REDUCE_LEFT, REDUCE_RIGHT].filter((a) => costs[a] === 0);
          byDynamic.apply(zero[(tieBreak + step) % zero.length]!);
        }
        expect(Array.from(byDynamic.headsOut())).toEqual(heads);
      }),
      { numRuns: 300 },
    );
  });

  it("the costs of the transitions taken add up to the final loss minus the best reachable from the start", () => {
    const oracle = new DynamicOracle();
    fc.assert(
      fc.property(instance(8), ([heads, choices]) => {
        const gold = new GoldTree(heads);
        const state = new ArcHybridState().reset(gold.n);
        const start = oracle.minLoss(state, gold);
        const valid: number[] = [];
        const costs: number[] = [];
        let total = 0;
        for (let i = 0; !state.isTerminal(); i++) {
          state.validActions(valid);
          const action = valid[(choices[i] ?? 0) % valid.length]!;
          total += oracle.costs(state, gold, costs)[action]!;
          state.apply(action);
        }
        expect(total).toBe(gold.n - correctArcs(state, gold) - start);
      }),
      { numRuns: 300 },
    );
  });
});

describe("gold trees", () => {
  it("classifies projectivity with ROOT at position 0", () => {
    expect(isProjectiveTree(Int32Array.from([-1, 2, 0, 2]))).toBe(true);
    // The chain ROOT → 3 → 2 → 1.
    expect(isProjectiveTree(Int32Array.from([-1, 2, 3, 0]))).toBe(true);
    // 1 → 3 spans 2, whose head 0 lies outside the span.
    expect(isProjectiveTree(Int32Array.from([-1, 0, 0, 1]))).toBe(false);
    // A cycle is not a tree.
    expect(isProjectiveTree(Int32Array.from([-1, 2, 1]))).toBe(false);
  });

  it("rejects heads out of range and self-loops", () => {
    expect(() => new GoldTree([0, 3])).toThrow(/word 2: gold head 3/);
    expect(() => new GoldTree([1])).toThrow(/word 1/);
  });
});
