import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isSubmodularTable,
  minOf,
  minOverAuxiliaries,
  RecordingGraph,
  valueTable,
} from "../testing/pseudo-boolean-oracles.js";
import { assignmentFromCut, buildCutGraph } from "./cut-graph.js";
import { NonRepresentableTermError } from "./errors.js";
import { PseudoBooleanFunction } from "./function.js";
import { labelGroups, type QuadraticReduction, reduceToQuadratic } from "./reduce.js";

interface TermSpec {
  readonly vars: number[];
  readonly values: number[];
  readonly a: number;
  readonly pattern: boolean;
}

interface FunctionSpec {
  readonly n: number;
  readonly constant: number;
  readonly linear: number[];
  readonly terms: TermSpec[];
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** A term of order 1..5 (at most n) of either sign; patterns get random values. */
function termArb(n: number, maxOrder = 5, allowPatterns = true): fc.Arbitrary<TermSpec> {
  return fc
    .integer({ min: 1, max: Math.min(maxOrder, n) })
    .chain((k) =>
      fc.record({
        vars: fc.shuffledSubarray(range(n), { minLength: k, maxLength: k }),
        bits: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: k, maxLength: k }),
        uniform: fc.integer({ min: 0, max: 2 }),
        a: fc.integer({ min: -12, max: 12 }).filter((a) => a !== 0),
        pattern: allowPatterns ? fc.boolean() : fc.constant(false),
      }),
    )
    .map(({ vars, bits, uniform, a, pattern }) => {
      // Patterns: all ones, all zeros or random values, about a third each.
      const values = !pattern ? vars.map(() => 1) : uniform === 2 ? bits : vars.map(() => uniform);
      return { vars, values, a, pattern };
    });
}

function functionArb(options: {
  maxN?: number;
  maxTerms?: number;
  maxOrder?: number;
  patterns?: boolean;
}): fc.Arbitrary<FunctionSpec> {
  return fc.integer({ min: 1, max: options.maxN ?? 10 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      constant: fc.integer({ min: -5, max: 5 }),
      linear: fc.array(fc.integer({ min: -15, max: 15 }), { minLength: n, maxLength: n }),
      terms: fc.array(termArb(n, options.maxOrder ?? 5, options.patterns ?? true), {
        maxLength: options.maxTerms ?? 5,
      }),
    }),
  );
}

function build(spec: FunctionSpec): PseudoBooleanFunction {
  const f = new PseudoBooleanFunction(spec.n).addConstant(spec.constant);
  spec.linear.forEach((a, i) => {
    f.addLinear(i, a);
  });
  for (const t of spec.terms) {
    if (t.pattern) f.addPattern(t.vars, t.values, t.a);
    else f.addMonomial(t.vars, t.a);
  }
  return f;
}

/**
 * Adds, for every term, negative pair terms at least as large as anything the reductions can
 * leave on its pairs (computed here from the term alone, not by the code under test): a positive
 * uniform term of order ≥ 2 leaves +a; a mixed pattern of order 2 leaves −a; a mixed pattern of
 * order ≥ 3, expanded on its side of s literals, at most 2^s·|a|.
 */
function compensate(spec: FunctionSpec, slack: number[]): FunctionSpec {
  const extra: TermSpec[] = [];
  let s = 0;
  for (const t of spec.terms) {
    const k = t.vars.length;
    if (k < 2) continue;
    const ones = t.values.reduce((x, y) => x + y, 0);
    const mixed = ones > 0 && ones < k;
    let need: number;
    if (!mixed) need = Math.max(t.a, 0);
    else if (k === 2) need = t.a < 0 ? -t.a : 0;
    else need = 2 ** Math.min(ones, k - ones) * Math.abs(t.a);
    if (need === 0) continue;
    for (let r = 0; r < k; r++) {
      for (let q = r + 1; q < k; q++) {
        extra.push({
          vars: [t.vars[r]!, t.vars[q]!],
          values: [1, 1],
          a: -need - (slack[s++ % slack.length] ?? 0),
          pattern: false,
        });
      }
    }
  }
  return { ...spec, terms: [...spec.terms, ...extra] };
}

/** f(x) = min over the auxiliaries of Q(x, ·), for every x, by enumeration. */
function expectExact(f: PseudoBooleanFunction, r: QuadraticReduction): void {
  expect(r.exact).toBe(true);
  expect(r.quadratic.isSubmodular()).toBe(true);
  const table = valueTable(f.numVariables, (x) => f.evaluate(x));
  const reduced = minOverAuxiliaries(r.quadratic, r.numOriginal);
  for (let mask = 0; mask < table.length; mask++) {
    expect(reduced[mask]).toBeCloseTo(table[mask]!, 9);
  }
}

/** Min-cut value + constant = min f, by enumerating every cut of the built graph (≤ 14 nodes). */
function expectGraphMinimum(f: PseudoBooleanFunction, r: QuadraticReduction): void {
  const graph = new RecordingGraph();
  const layout = buildCutGraph(r.quadratic, graph);
  const minimum = minOf(valueTable(f.numVariables, (x) => f.evaluate(x)));
  if (graph.numNodes <= 14) {
    const cut = graph.bruteForceMinCut();
    expect(cut.value + layout.constant).toBeCloseTo(minimum, 9);
    const x = assignmentFromCut(layout, (node) => cut.sink[node] === 1, r.numOriginal);
    expect(f.evaluate(x)).toBeCloseTo(minimum, 9);
  }
  expect(graph.maxFlow() + layout.constant).toBeCloseTo(minimum, 9);
}

describe("reduceToQuadratic: representable functions", () => {
  it("keeps every value (auxiliaries minimised out) and the minimum, for orders 1..5 of both signs", () => {
    fc.assert(
      fc.property(
        functionArb({}),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 5 }),
        (raw, slack) => {
          const f = build(compensate(raw, slack));
          const r = reduceToQuadratic(f);
          fc.pre(r.numOriginal + r.numAuxiliary <= 16);
          expectExact(f, r);
          expectGraphMinimum(f, r);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("min-cut + constant = min energy on graphs small enough to enumerate every cut", () => {
    fc.assert(
      fc.property(
        functionArb({ maxN: 8, maxTerms: 3 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 3 }),
        (raw, slack) => {
          const f = build(compensate(raw, slack));
          const r = reduceToQuadratic(f);
          fc.pre(r.quadratic.numVariables <= 14);
          expectGraphMinimum(f, r);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("Freedman–Drineas: a negative monomial of order k takes one auxiliary and no pair between originals", () => {
    for (let k = 3; k <= 6; k++) {
      const f = new PseudoBooleanFunction(k).addMonomial(range(k), -7);
      const r = reduceToQuadratic(f);
      expect(r.numAuxiliary).toBe(1);
      expect(Array.from(r.quadratic.pairSecond).every((j) => j === k)).toBe(true);
      expectExact(f, r);
    }
  });

  it("Živný–Jeavons: a positive monomial of order k takes max(1, k − 3) auxiliaries", () => {
    for (let k = 3; k <= 7; k++) {
      const f = new PseudoBooleanFunction(k).addMonomial(range(k), 4);
      for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) f.addQuadratic(i, j, -4);
      const r = reduceToQuadratic(f);
      expect(r.numAuxiliary).toBe(Math.max(1, k - 3));
      // The leftover +4 cancels the −4 exactly: only pairs with auxiliaries remain.
      expect(Array.from(r.quadratic.pairSecond).every((j) => j >= k)).toBe(true);
      expectExact(f, r);
    }
  });

  it("all-zero patterns are reduced with complemented auxiliaries, without expansion", () => {
    const f = new PseudoBooleanFunction(5).addPattern(range(5), [0, 0, 0, 0, 0], -9);
    const r = reduceToQuadratic(f);
    expect(r.numAuxiliary).toBe(1);
    expect(r.quadratic.numPairs).toBe(5);
    expectExact(f, r);
  });

  it("merges terms over the same variables and values before reducing", () => {
    const f = new PseudoBooleanFunction(3)
      .addMonomial([0, 1, 2], 5)
      .addMonomial([2, 0, 1], -5)
      .addPattern([0, 1, 2], [1, 1, 1], -2);
    const r = reduceToQuadratic(f);
    expect(r.numAuxiliary).toBe(1); // one Freedman–Drineas auxiliary for the merged −2
    expectExact(f, r);
  });

  it("treats a positive pair within the tolerance as rounding noise", () => {
    const f = new PseudoBooleanFunction(2).addQuadratic(0, 1, 0.1).addQuadratic(0, 1, 0.2);
    f.addQuadratic(1, 0, -0.3);
    expect(0.1 + 0.2 - 0.3).toBeGreaterThan(0);
    const r = reduceToQuadratic(f);
    expect(r.quadratic.numPairs).toBe(0);
    expect(() => reduceToQuadratic(f, { tolerance: 0 })).toThrow(NonRepresentableTermError);
  });
});

describe("reduceToQuadratic: non-representable functions", () => {
  function thrown(f: PseudoBooleanFunction, options = {}): NonRepresentableTermError {
    try {
      reduceToQuadratic(f, options);
    } catch (e) {
      expect(e).toBeInstanceOf(NonRepresentableTermError);
      return e as NonRepresentableTermError;
    }
    throw new Error("expected a NonRepresentableTermError");
  }

  it("names a positive quadratic term, its variables and coefficient", () => {
    const e = thrown(new PseudoBooleanFunction(3).addQuadratic(0, 2, 3).addQuadratic(0, 2, -1));
    expect(e.term).toEqual({
      kind: "monomial",
      variables: [0, 2],
      values: [1, 1],
      coefficient: 3,
      termIndices: [0],
    });
    expect(e.pair).toEqual([0, 2]);
    expect(e.pairCoefficient).toBe(2);
    expect(e.message).toMatch(/^term #0 \+3·x0·x2 cannot be made graph-representable/);
    expect(e.message).toMatch(/pair x0·x2 keeps the coefficient \+2 > 0/);
    expect(e.message).toMatch(/−1 from term #1 −1·x0·x2/);
    expect(e.code).toBe("invalid-problem");
  });

  it("names a positive cubic whose pairs are not cancelled", () => {
    const f = new PseudoBooleanFunction(4)
      .addQuadratic(0, 1, -5)
      .addQuadratic(0, 2, -5)
      .addQuadratic(1, 2, -2)
      .addMonomial([0, 1, 2], 5);
    const e = thrown(f, { variableName: (v: number) => `z${v}` });
    expect(e.term.variables).toEqual([0, 1, 2]);
    expect(e.term.coefficient).toBe(5);
    expect(e.pair).toEqual([1, 2]);
    expect(e.pairCoefficient).toBe(3);
    expect(e.message).toMatch(/term #3 \+5·z0·z1·z2 cannot/);
    expect(e.message).toMatch(/pair z1·z2 keeps the coefficient \+3/);
    expect(e.message).toMatch(/Živný–Jeavons/);
  });

  it("refuses a mixed pattern of order ≥ 3 of either sign on its own", () => {
    for (const a of [-4, 4]) {
      const e = thrown(new PseudoBooleanFunction(3).addPattern([0, 1, 2], [1, 1, 0], a));
      expect(e.term.kind).toBe("pattern");
      expect(e.term.values).toEqual([1, 1, 0]);
      expect(e.term.coefficient).toBe(a);
      expect(e.message).toMatch(/\[x0=1, x1=1, x2=0\]/);
    }
  });

  it("refuses a pattern too mixed to expand", () => {
    const n = 26;
    const values = range(n).map((i) => i % 2);
    const e = thrown(new PseudoBooleanFunction(n).addPattern(range(n), values, -1));
    expect(e.pair).toBeUndefined();
    expect(e.message).toMatch(/13 ones, 13 zeros.*2\^13 pieces/);
  });

  it("raises whenever the function is not submodular, and is exact whenever it does not", () => {
    fc.assert(
      fc.property(functionArb({ maxN: 7, maxTerms: 6 }), (spec) => {
        const f = build(spec);
        const table = valueTable(f.numVariables, (x) => f.evaluate(x));
        const submodular = isSubmodularTable(f.numVariables, table);
        let r: QuadraticReduction | undefined;
        try {
          r = reduceToQuadratic(f);
        } catch (e) {
          expect(e).toBeInstanceOf(NonRepresentableTermError);
          const error = e as NonRepresentableTermError;
          // The blamed term is a real one: its indices point at stored terms with its variables
          // and values, whose coefficients sum to the one named.
          expect(error.term.termIndices.length).toBeGreaterThan(0);
          let sum = 0;
          for (const t of error.term.termIndices) {
            const stored = f.term(t);
            expect([...stored.variables].sort()).toEqual([...error.term.variables].sort());
            sum += stored.coefficient;
          }
          expect(sum).toBe(error.term.coefficient);
          expect(error.message).toContain(
            `${error.term.coefficient > 0 ? "+" : "−"}${Math.abs(error.term.coefficient)}·`,
          );
          if (error.pair !== undefined) {
            expect(error.pairCoefficient).toBeGreaterThan(0);
            expect(error.term.variables).toContain(error.pair[0]);
            expect(error.term.variables).toContain(error.pair[1]);
          }
          return;
        }
        // Reduced without error: then f is a partial minimum of a submodular function.
        expect(submodular).toBe(true);
        if (r.numOriginal + r.numAuxiliary <= 16) expectExact(f, r);
      }),
      { numRuns: 500 },
    );
  });

  it("accepts exactly the submodular functions among sums of monomials of order ≤ 3", () => {
    fc.assert(
      fc.property(functionArb({ maxN: 6, maxTerms: 8, maxOrder: 3, patterns: false }), (spec) => {
        const f = build(spec);
        const submodular = isSubmodularTable(
          f.numVariables,
          valueTable(f.numVariables, (x) => f.evaluate(x)),
        );
        let accepted = true;
        try {
          reduceToQuadratic(f);
        } catch (e) {
          expect(e).toBeInstanceOf(NonRepresentableTermError);
          accepted = false;
        }
        expect(accepted).toBe(submodular);
      }),
      { numRuns: 500 },
    );
  });
});

describe("reduceToQuadratic: the ψ reparameterisation over one-hot groups", () => {
  /** Every assignment with exactly one 1 per group (groups of `labels` consecutive variables). */
  function oneHot(groups: number, labels: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let code = 0; code < labels ** groups; code++) {
      const x = new Uint8Array(groups * labels);
      let c = code;
      for (let g = 0; g < groups; g++) {
        x[g * labels + (c % labels)] = 1;
        c = Math.floor(c / labels);
      }
      out.push(x);
    }
    return out;
  }

  const labelledArb = fc
    .record({ groups: fc.integer({ min: 2, max: 5 }), labels: fc.integer({ min: 2, max: 3 }) })
    .filter(({ groups, labels }) => groups * labels <= 10)
    .chain(({ groups, labels }) => {
      const n = groups * labels;
      const pattern = fc
        .integer({ min: 2, max: groups })
        .chain((k) =>
          fc.record({
            at: fc.shuffledSubarray(range(groups), { minLength: k, maxLength: k }),
            labels: fc.array(fc.integer({ min: 0, max: labels - 1 }), {
              minLength: k,
              maxLength: k,
            }),
            a: fc.integer({ min: -12, max: 12 }).filter((a) => a !== 0),
          }),
        )
        .map(({ at, labels: ls, a }) => ({ vars: at.map((g, r) => g * labels + ls[r]!), a }));
      return fc.record({
        groups: fc.constant(groups),
        labels: fc.constant(labels),
        linear: fc.array(fc.integer({ min: -15, max: 15 }), { minLength: n, maxLength: n }),
        patterns: fc.array(pattern, { maxLength: 4 }),
        sameGroup: fc.array(
          fc.record({
            g: fc.integer({ min: 0, max: groups - 1 }),
            a: fc.integer({ min: -5, max: 5 }),
          }),
          { maxLength: 2 },
        ),
      });
    });

  it("keeps every one-hot value, makes every pair ≤ 0, and its minimum is a lower bound", () => {
    fc.assert(
      fc.property(labelledArb, ({ groups, labels, linear, patterns, sameGroup }) => {
        const n = groups * labels;
        const f = new PseudoBooleanFunction(n);
        linear.forEach((a, i) => {
          f.addLinear(i, a);
        });
        for (const { vars, a } of patterns) f.addMonomial(vars, a);
        for (const { g, a } of sameGroup) f.addQuadratic(g * labels, g * labels + 1, a);
        const r = reduceToQuadratic(f, { oneHotGroups: labelGroups(groups, labels) });
        fc.pre(r.numOriginal + r.numAuxiliary <= 18);
        expect(r.quadratic.isSubmodular()).toBe(true);
        expect(r.exact).toBe(r.psi.length === 0 && r.droppedSameGroupPairs === 0);
        const reduced = minOverAuxiliaries(r.quadratic, n);
        let oneHotMin = Number.POSITIVE_INFINITY;
        for (const x of oneHot(groups, labels)) {
          let mask = 0;
          for (let i = 0; i < n; i++) mask += x[i]! * 2 ** i;
          expect(reduced[mask]).toBeCloseTo(f.evaluate(x), 9);
          oneHotMin = Math.min(oneHotMin, f.evaluate(x));
        }
        const relaxed = minOf(reduced);
        expect(relaxed).toBeLessThanOrEqual(oneHotMin + 1e-9);
        if (r.droppedSameGroupPairs === 0) {
          // Off the one-hot set, Q differs from f by exactly Σ ψ_gh·(1 − a_g·a_h), a_g = Σ_{s∈g} x_s.
          const table = valueTable(n, (x) => {
            let value = f.evaluate(x);
            for (const { groupA, groupB, value: psi } of r.psi) {
              let a = 0;
              let b = 0;
              for (let s = 0; s < labels; s++) {
                a += x[groupA * labels + s]!;
                b += x[groupB * labels + s]!;
              }
              value += psi * (1 - a * b);
            }
            return value;
          });
          for (let mask = 0; mask < table.length; mask++) {
            expect(reduced[mask]).toBeCloseTo(table[mask]!, 9);
          }
        }
        const graph = new RecordingGraph();
        const layout = buildCutGraph(r.quadratic, graph);
        expect(graph.maxFlow() + layout.constant).toBeCloseTo(relaxed, 9);
        for (const { groupA, groupB, value } of r.psi) {
          expect(groupA).toBeLessThan(groupB);
          expect(value).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("uses the smallest ψ per pair of groups, and none where every pair is already ≤ 0", () => {
    // The example of the reference-code notes (§7): 3 tokens, 2 labels, objective 5 on label 1
    // of each token and −1 on the pattern "all three take label 1"; the optimum is 14.
    const f = new PseudoBooleanFunction(6);
    for (let i = 0; i < 3; i++) f.addLinear(2 * i + 1, -5);
    f.addMonomial([1, 3, 5], 1);
    const r = reduceToQuadratic(f, { oneHotGroups: labelGroups(3, 2) });
    expect(r.psi).toEqual([
      { groupA: 0, groupB: 1, value: 1 },
      { groupA: 0, groupB: 2, value: 1 },
      { groupA: 1, groupB: 2, value: 1 },
    ]);
    expect(r.exact).toBe(false);
    const oneHotMin = Math.min(...oneHot(3, 2).map((x) => f.evaluate(x)));
    expect(oneHotMin).toBe(-14);
    // min over all 0/1 assignments of the reduced function: the relaxation's bound.
    const relaxed = minOf(minOverAuxiliaries(r.quadratic, 6));
    expect(relaxed).toBeLessThanOrEqual(-14);
    // All six indicators on: f = −15 + 1, and each ψ-pair adds 1·(1 − 2·2).
    expect(relaxed).toBe(-14 + 3 * (1 - 4));

    const negative = new PseudoBooleanFunction(6).addMonomial([1, 3, 5], -1);
    const exact = reduceToQuadratic(negative, { oneHotGroups: labelGroups(3, 2) });
    expect(exact.psi).toEqual([]);
    expect(exact.exact).toBe(true);
  });

  it("refuses a positive pair on a variable outside every group", () => {
    const f = new PseudoBooleanFunction(5).addQuadratic(0, 4, 2);
    const groups = Int32Array.from([0, 0, 1, 1, -1]);
    expect(() => reduceToQuadratic(f, { oneHotGroups: groups })).toThrow(
      /x4 is in no one-hot group, so ψ cannot cancel it/,
    );
    expect(() => reduceToQuadratic(f, { oneHotGroups: [0, 0, 1] })).toThrow(
      /oneHotGroups: has 3 entries, the function 5 variables/,
    );
  });
});
