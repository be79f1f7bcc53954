import { type LinearConstraint, linearConstraint } from "@lagrange/core";
import { constraintActivity } from "@lagrange/core/dual-decomposition";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LabelConstraintTracker, type LabelMask } from "./allowed-labels.js";

/** A small random sentence: a mask (or none) and constraints over {−2 … 2} coefficients. */
interface Instance {
  readonly n: number;
  readonly L: number;
  readonly mask: LabelMask | undefined;
  readonly constraints: LinearConstraint[];
  /** Picks among the allowed labels at each step of a walk. */
  readonly choices: number[];
}

const TOL = 1e-9;

function instanceArb(options: {
  readonly withMask: boolean;
  readonly constraints: [number, number];
  readonly soft: boolean | "mixed";
  readonly positionSpecific?: boolean;
}): fc.Arbitrary<Instance> {
  return fc
    .record({ n: fc.integer({ min: 1, max: 5 }), L: fc.integer({ min: 1, max: 4 }) })
    .chain(({ n, L }) => {
      const bits = (size: number, p: number) =>
        fc
          .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: size, maxLength: size })
          .map((xs) => Uint8Array.from(xs, (x) => (x < p ? 1 : 0)));
      const transSize = options.positionSpecific === true ? Math.max(1, n - 1) * L * L : L * L;
      const mask: fc.Arbitrary<LabelMask | undefined> = options.withMask
        ? fc.record({
            allowed: bits(options.positionSpecific === true && n >= 3 ? transSize : L * L, 0.7),
            allowedStart: bits(L, 0.8),
            allowedEnd: bits(L, 0.8),
            allowedLabels: bits(n * L, 0.9),
          })
        : fc.constant(undefined);
      const constraint = fc
        .record({
          terms: fc.array(
            fc.tuple(fc.integer({ min: 0, max: n * L - 1 }), fc.integer({ min: -2, max: 2 })),
            { minLength: 0, maxLength: 2 * n },
          ),
          rhs: fc.integer({ min: -2, max: 3 }),
          soft: options.soft === "mixed" ? fc.boolean() : fc.constant(options.soft),
          penalty: fc.double({ min: 0.25, max: 3, noNaN: true }),
        })
        .map(({ terms, rhs, soft, penalty }) =>
          linearConstraint(soft ? { terms, rhs, penalty } : { terms, rhs }),
        );
      return fc.record({
        n: fc.constant(n),
        L: fc.constant(L),
        mask,
        constraints: fc.array(constraint, {
          minLength: options.constraints[0],
          maxLength: options.constraints[1],
        }),
        choices: fc.array(fc.nat(), { minLength: n, maxLength: n }),
      });
    });
}

/** Every labelling of n positions over L labels. */
function* labellings(n: number, L: number): Generator<Int32Array> {
  const y = new Int32Array(n);
  const total = L ** n;
  for (let code = 0; code < total; code++) {
    let c = code;
    for (let i = 0; i < n; i++) {
      y[i] = c % L;
      c = Math.floor(c / L);
    }
    yield y;
  }
}

function maskValid(mask: LabelMask | undefined, n: number, L: number, y: Int32Array): boolean {
  if (mask === undefined) return true;
  const { allowed, allowedStart, allowedEnd, allowedLabels } = mask;
  const LL = L * L;
  if (allowedStart !== undefined && allowedStart[y[0]!] === 0) return false;
  if (allowedEnd !== undefined && allowedEnd[y[n - 1]!] === 0) return false;
  for (let i = 0; i < n; i++) {
    if (allowedLabels !== undefined && allowedLabels[i * L + y[i]!] === 0) return false;
    if (i > 0 && allowed !== undefined) {
      const block = allowed.length === LL ? 0 : (i - 1) * LL;
      if (allowed[block + y[i - 1]! * L + y[i]!] === 0) return false;
    }
  }
  return true;
}

function hasPrefix(y: Int32Array, prefix: readonly number[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (y[i] !== prefix[i]) return false;
  return true;
}

const violation = (c: LinearConstraint, y: Int32Array, L: number) =>
  Math.max(0, constraintActivity(c, y, L) - c.rhs);

/** Brute force over the completions of a prefix that satisfy the mask (and `keep`). */
function completions(
  inst: Instance,
  prefix: readonly number[],
  keep: (y: Int32Array) => boolean = () => true,
): Int32Array[] {
  const out: Int32Array[] = [];
  for (const y of labellings(inst.n, inst.L)) {
    if (hasPrefix(y, prefix) && maskValid(inst.mask, inst.n, inst.L, y) && keep(y)) {
      out.push(y.slice());
    }
  }
  return out;
}

/** Labels at position prefix.length that some completion kept by `keep` takes. */
function completable(
  inst: Instance,
  prefix: readonly number[],
  keep?: (y: Int32Array) => boolean,
): number[] {
  const i = prefix.length;
  const set = new Set<number>();
  for (const y of completions(inst, prefix, keep)) set.add(y[i]!);
  return [...set].sort((a, b) => a - b);
}

function minViolation(inst: Instance, c: LinearConstraint, prefix: readonly number[]): number {
  let best = Number.POSITIVE_INFINITY;
  for (const y of completions(inst, prefix)) best = Math.min(best, violation(c, y, inst.L));
  return best;
}

interface Step {
  readonly prefix: number[];
  readonly allowed: number[];
  readonly costs: number[];
  readonly fallback: string;
}

/** Walks the sentence left to right, choosing among the allowed labels by `inst.choices`. */
function walk(inst: Instance, tracker: LabelConstraintTracker): Step[] {
  const outAllowed = new Int32Array(inst.L);
  const outCosts = new Float64Array(inst.L);
  const prefix: number[] = [];
  const steps: Step[] = [];
  for (let i = 0; i < inst.n; i++) {
    const count = tracker.allowedAt(i, outAllowed, outCosts);
    const allowed = [...outAllowed.subarray(0, count)];
    steps.push({
      prefix: [...prefix],
      allowed,
      costs: [...outCosts.subarray(0, count)],
      fallback: tracker.lastFallback,
    });
    const label = allowed[inst.choices[i]! % count]!;
    tracker.commit(i, label);
    prefix.push(label);
  }
  return steps;
}

const track = (inst: Instance, constraints: LinearConstraint[], followMask = true) =>
  new LabelConstraintTracker({ followMask }).reset({
    n: inst.n,
    L: inst.L,
    ...(inst.mask === undefined ? {} : { mask: inst.mask }),
    constraints,
  });

describe("LabelConstraintTracker: the mask", () => {
  it("allows a label iff some mask-valid completion takes it (shared and position-specific)", () => {
    for (const positionSpecific of [false, true]) {
      fc.assert(
        fc.property(
          instanceArb({ withMask: true, constraints: [0, 0], soft: false, positionSpecific }),
          (inst) => {
            const tracker = track(inst, []);
            const feasible = completions(inst, []).length > 0;
            expect(tracker.maskFeasible).toBe(feasible);
            expect(tracker.provablyInfeasible).toBe(!feasible);
            const steps = walk(inst, tracker);
            if (!feasible) return;
            for (const step of steps) {
              expect(step.allowed).toEqual(completable(inst, step.prefix));
              expect(step.costs.every((c) => c === 0)).toBe(true);
              expect(step.fallback).toBe("none");
            }
            expect(tracker.maskBreaks).toBe(0);
            expect(maskValid(inst.mask, inst.n, inst.L, tracker.labels)).toBe(true);
          },
        ),
        { numRuns: 300 },
      );
    }
  });

  it("recovers after a committed label the mask forbids, and counts it", () => {
    // L = 2, only 0 → 0 and 1 → 1; the sentence must start and end with 0: committing 1 at 0
    // breaks the mask; position 1 then falls back to what can still end validly.
    const tracker = new LabelConstraintTracker().reset({
      n: 3,
      L: 2,
      mask: {
        allowed: Uint8Array.of(1, 0, 0, 1),
        allowedStart: Uint8Array.of(1, 0),
        allowedEnd: Uint8Array.of(1, 0),
      },
    });
    const allowed = new Int32Array(2);
    const costs = new Float64Array(2);
    expect(tracker.allowedAt(0, allowed, costs)).toBe(1);
    tracker.commit(0, 1);
    expect(tracker.maskBreaks).toBe(1);
    const count = tracker.allowedAt(1, allowed, costs);
    expect(tracker.lastFallback).toBe("mask");
    expect([...allowed.subarray(0, count)]).toEqual([0]);
    tracker.commit(1, 0);
    expect(tracker.allowedAt(2, allowed, costs)).toBe(1);
    expect(tracker.lastFallback).toBe("none");
    expect(tracker.maskFallbacks).toBe(1);
  });
});

describe("LabelConstraintTracker: one hard constraint", () => {
  const exact = (inst: Instance, followMask: boolean) => {
    const c = inst.constraints[0]!;
    const tracker = track(inst, [c], followMask);
    const satisfies = (y: Int32Array) => constraintActivity(c, y, inst.L) <= c.rhs + TOL;
    const feasible = completions(inst, [], satisfies).length > 0;
    expect(tracker.provablyInfeasible).toBe(!feasible);
    const steps = walk(inst, tracker);
    if (!feasible) {
      expect(steps[0]!.fallback).not.toBe("none");
      expect(tracker.constraintFallbacks).toBeGreaterThan(0);
      return;
    }
    for (const step of steps) {
      expect(step.allowed).toEqual(completable(inst, step.prefix, satisfies));
      expect(step.fallback).toBe("none");
    }
    expect(constraintActivity(c, tracker.labels, inst.L)).toBeLessThanOrEqual(c.rhs + TOL);
    expect(tracker.partialActivity(0)).toBe(constraintActivity(c, tracker.labels, inst.L));
  };

  it("is exact with the mask (followMask)", () => {
    fc.assert(
      fc.property(instanceArb({ withMask: true, constraints: [1, 1], soft: false }), (inst) => {
        if (completions(inst, []).length > 0) exact(inst, true);
      }),
      { numRuns: 400 },
    );
  });

  it("is exact without a mask, per-position minima alone (followMask false)", () => {
    fc.assert(
      fc.property(instanceArb({ withMask: false, constraints: [1, 1], soft: false }), (inst) =>
        exact(inst, false),
      ),
      { numRuns: 400 },
    );
  });

  it("with a mask but followMask false, still a necessary condition", () => {
    fc.assert(
      fc.property(instanceArb({ withMask: true, constraints: [1, 1], soft: false }), (inst) => {
        if (completions(inst, []).length === 0) return;
        const c = inst.constraints[0]!;
        const satisfies = (y: Int32Array) => constraintActivity(c, y, inst.L) <= c.rhs + TOL;
        for (const step of walk(inst, track(inst, [c], false))) {
          const truly = completable(inst, step.prefix, satisfies);
          if (truly.length > 0) expect(step.allowed).toEqual(expect.arrayContaining(truly));
          for (const y of step.allowed) {
            expect(completable(inst, step.prefix)).toContain(y); // the mask stays exact
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("an at-most-k count tracks incrementally and is never exceeded", () => {
    // Label 1 at most k times over n positions, L = 3, no mask.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 4 }),
        fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        (n, k, choices) => {
          const L = 3;
          const c = linearConstraint({
            terms: Array.from({ length: n }, (_, i) => [i * L + 1, 1] as const),
            rhs: k,
          });
          const tracker = new LabelConstraintTracker().reset({ n, L, constraints: [c] });
          const allowed = new Int32Array(L);
          const costs = new Float64Array(L);
          let used = 0;
          for (let i = 0; i < n; i++) {
            const count = tracker.allowedAt(i, allowed, costs);
            const set = [...allowed.subarray(0, count)];
            expect(set).toEqual(used < k ? [0, 1, 2] : [0, 2]);
            const y = set[choices[i]! % count]!;
            tracker.commit(i, y);
            if (y === 1) used++;
            expect(tracker.partialActivity(0)).toBe(used);
          }
          expect(used).toBeLessThanOrEqual(k);
        },
      ),
    );
  });

  it("an at-least-one constraint forces its label as the end approaches", () => {
    const n = 4;
    const L = 3;
    // −Σ z[i, 2] ≤ −1: label 2 at least once.
    const c = linearConstraint({
      terms: Array.from({ length: n }, (_, i) => [i * L + 2, -1] as const),
      rhs: -1,
    });
    const tracker = new LabelConstraintTracker().reset({ n, L, constraints: [c] });
    const allowed = new Int32Array(L);
    const costs = new Float64Array(L);
    for (let i = 0; i < n - 1; i++) {
      expect(tracker.allowedAt(i, allowed, costs)).toBe(3);
      tracker.commit(i, 0);
    }
    expect(tracker.allowedAt(n - 1, allowed, costs)).toBe(1);
    expect(allowed[0]).toBe(2);
  });
});

describe("LabelConstraintTracker: several hard constraints", () => {
  it("allows every truly completable label, and falls back only when none is left", () => {
    fc.assert(
      fc.property(instanceArb({ withMask: true, constraints: [2, 4], soft: false }), (inst) => {
        const maskFeasible = completions(inst, []).length > 0;
        const tracker = track(inst, inst.constraints);
        const satisfiesAll = (y: Int32Array) =>
          inst.constraints.every((c) => constraintActivity(c, y, inst.L) <= c.rhs + TOL);
        const steps = walk(inst, tracker);
        let fallbacks = 0;
        for (const step of steps) {
          expect(step.allowed.length).toBeGreaterThan(0);
          if (step.fallback === "constraints") fallbacks++;
          if (!maskFeasible) continue;
          const truly = completable(inst, step.prefix, satisfiesAll);
          expect(step.allowed).toEqual(expect.arrayContaining(truly));
          if (truly.length > 0) expect(step.fallback).toBe("none");
          // The mask is never given up for the linear constraints.
          for (const y of step.allowed) expect(completable(inst, step.prefix)).toContain(y);
        }
        expect(tracker.constraintFallbacks).toBe(fallbacks);
        if (maskFeasible) expect(maskValid(inst.mask, inst.n, inst.L, tracker.labels)).toBe(true);
        // A hard violation in the output is always reported by a fallback.
        if (!satisfiesAll(tracker.labels)) expect(fallbacks).toBeGreaterThan(0);
      }),
      { numRuns: 400 },
    );
  });
});

describe("LabelConstraintTracker: soft constraints", () => {
  it("costs are the brute-force increase of each constraint's least violation, summed", () => {
    fc.assert(
      fc.property(instanceArb({ withMask: true, constraints: [1, 3], soft: true }), (inst) => {
        if (completions(inst, []).length === 0) return;
        const tracker = track(inst, inst.constraints);
        const allowedOut = new Int32Array(inst.L);
        const costsOut = new Float64Array(inst.L);
        const prefix: number[] = [];
        for (let i = 0; i < inst.n; i++) {
          inst.constraints.forEach((c, k) => {
            expect(tracker.minimalViolation(k)).toBeCloseTo(minViolation(inst, c, prefix), 9);
          });
          const count = tracker.allowedAt(i, allowedOut, costsOut);
          const allowed = [...allowedOut.subarray(0, count)];
          // Soft rules never prune: the mask's labels, all of them.
          expect(allowed).toEqual(completable(inst, prefix));
          allowed.forEach((y, j) => {
            let expected = 0;
            for (const c of inst.constraints) {
              expected +=
                c.penalty! *
                (minViolation(inst, c, [...prefix, y]) - minViolation(inst, c, prefix));
            }
            expect(costsOut[j]).toBeCloseTo(expected, 9);
          });
          const y = allowed[inst.choices[i]! % count]!;
          tracker.commit(i, y);
          prefix.push(y);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("mixed hard and soft: hard rules prune exactly (one), soft ones price", () => {
    fc.assert(
      fc.property(instanceArb({ withMask: false, constraints: [2, 2], soft: false }), (inst) => {
        const [hard, soft0] = inst.constraints as [LinearConstraint, LinearConstraint];
        const soft: LinearConstraint = { ...soft0, penalty: 2 };
        const tracker = track(inst, [hard, soft]);
        const satisfies = (y: Int32Array) => constraintActivity(hard, y, inst.L) <= hard.rhs + TOL;
        if (completions(inst, [], satisfies).length === 0) return;
        for (const step of walk(inst, tracker)) {
          expect(step.allowed).toEqual(completable(inst, step.prefix, satisfies));
          step.allowed.forEach((y, j) => {
            const expected =
              2 *
              (minViolation(inst, soft, [...step.prefix, y]) -
                minViolation(inst, soft, step.prefix));
            expect(step.costs[j]).toBeCloseTo(expected, 9);
          });
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("LabelConstraintTracker: passes and buffers", () => {
  it("restart replays the same sentence; a smaller sentence after a larger reuses the buffers", () => {
    const tracker = new LabelConstraintTracker();
    const big = {
      n: 6,
      L: 4,
      constraints: [
        linearConstraint({
          terms: [
            [1, 1],
            [5, 1],
          ],
          rhs: 1,
        }),
      ],
    };
    tracker.reset(big);
    const allowed = new Int32Array(4);
    const costs = new Float64Array(4);
    const first: number[] = [];
    for (let i = 0; i < 6; i++) {
      first.push(tracker.allowedAt(i, allowed, costs));
      tracker.commit(i, 1);
    }
    expect(tracker.position).toBe(6);
    expect(() => tracker.allowedAt(6, allowed, costs)).toThrow(/complete/);
    tracker.restart();
    const second: number[] = [];
    for (let i = 0; i < 6; i++) {
      second.push(tracker.allowedAt(i, allowed, costs));
      tracker.commit(i, 1);
    }
    expect(second).toEqual(first);
    expect(first).toEqual([4, 3, 4, 4, 4, 4]);
    tracker.reset({ n: 2, L: 2 });
    expect(tracker.allowedAt(0, allowed, costs)).toBe(2);
    expect(() => tracker.commit(1, 0)).toThrow(/left to right/);
  });

  it("allowedActions gives PredictRequest's arrays, costs only when some is not 0", () => {
    const tracker = new LabelConstraintTracker().reset({
      n: 2,
      L: 3,
      constraints: [linearConstraint({ terms: [[1, 1]], rhs: 0, penalty: 1.5 })],
    });
    expect(tracker.allowedActions(0)).toEqual({ allowed: [0, 1, 2], allowedCosts: [0, 1.5, 0] });
    tracker.commit(0, 1);
    expect(tracker.allowedActions(1)).toEqual({ allowed: [0, 1, 2] });
  });

  it("resetFromScores reads the −∞ pattern of chain scores", () => {
    const NEG = Number.NEGATIVE_INFINITY;
    const tracker = new LabelConstraintTracker().resetFromScores({
      n: 3,
      L: 2,
      unary: Float64Array.of(0, 0, 0, NEG, 0, 0),
      transition: Float64Array.of(0, NEG, 0, 0), // 0 → 1 forbidden
      start: Float64Array.of(0, 0),
      end: Float64Array.of(NEG, 0), // must end with 1
    });
    const allowed = new Int32Array(2);
    const costs = new Float64Array(2);
    // Position 1 may not be 1, so it is 0, and then position 2 cannot be 1: 0 → 1 is forbidden.
    // Every labelling is infeasible.
    expect(tracker.maskFeasible).toBe(false);
    expect(tracker.allowedAt(0, allowed, costs)).toBe(2);
    const ok = new LabelConstraintTracker().resetFromScores({
      n: 3,
      L: 2,
      unary: new Float64Array(6),
      transition: Float64Array.of(0, NEG, 0, 0),
      end: Float64Array.of(NEG, 0),
      allowed: Uint8Array.of(1, 1, 0, 1), // and 1 → 0 forbidden: only 1 1 1
    });
    expect(ok.maskFeasible).toBe(true);
    expect(ok.allowedAt(0, allowed, costs)).toBe(1);
    expect(allowed[0]).toBe(1);
  });
});
