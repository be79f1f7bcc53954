import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RecordingGraph } from "../testing/pseudo-boolean-oracles.js";
import { assignmentFromCut, buildCutGraph } from "./cut-graph.js";
import { NonRepresentableTermError } from "./errors.js";
import { QuadraticPseudoBoolean } from "./quadratic.js";

const quadraticArb = fc.integer({ min: 2, max: 12 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    constant: fc.integer({ min: -10, max: 10 }),
    linear: fc.array(fc.integer({ min: -20, max: 20 }), { minLength: n, maxLength: n }),
    pairs: fc.array(
      fc
        .record({
          i: fc.integer({ min: 0, max: n - 1 }),
          d: fc.integer({ min: 1, max: n - 1 }),
          q: fc.integer({ min: -20, max: 0 }),
        })
        .map(({ i, d, q }) => ({ i, j: (i + d) % n, q })),
      { maxLength: 20 },
    ),
    x: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: n, maxLength: n }),
    before: fc.integer({ min: 0, max: 3 }),
  }),
);

function quadratic(spec: {
  n: number;
  constant: number;
  linear: number[];
  pairs: { i: number; j: number; q: number }[];
}): QuadraticPseudoBoolean {
  return new QuadraticPseudoBoolean({
    numVariables: spec.n,
    constant: spec.constant,
    linear: Float64Array.from(spec.linear),
    pairFirst: Int32Array.from(spec.pairs.map((p) => p.i)),
    pairSecond: Int32Array.from(spec.pairs.map((p) => p.j)),
    pairCoefficient: Float64Array.from(spec.pairs.map((p) => p.q)),
  });
}

describe("buildCutGraph", () => {
  it("every cut's capacity + constant is Q at the cut's assignment (x_i = 1 ⇔ sink side)", () => {
    fc.assert(
      fc.property(quadraticArb, (spec) => {
        const q = quadratic(spec);
        const graph = new RecordingGraph();
        graph.addNodes(spec.before); // the function's nodes need not start at 0
        const layout = buildCutGraph(q, graph);
        expect(layout.firstNode).toBe(spec.before);
        expect(layout.numNodes).toBe(spec.n);
        const sink = new Uint8Array(graph.numNodes);
        spec.x.forEach((b, i) => {
          sink[spec.before + i] = b;
        });
        expect(graph.cutCapacity(sink) + layout.constant).toBe(q.evaluate(spec.x));
        // Each node gets at most one terminal line, with one side 0, like the fixtures' graphs.
        const nodes = graph.terminals.map(([i]) => i);
        expect(new Set(nodes).size).toBe(nodes.length);
        for (const [, s, t] of graph.terminals) expect(s === 0 || t === 0).toBe(true);
        expect(Array.from(assignmentFromCut(layout, (node) => sink[node] === 1))).toEqual(spec.x);
      }),
      { numRuns: 500 },
    );
  });

  it("its minimum cut + constant is min Q (by enumerating every cut)", () => {
    fc.assert(
      fc.property(quadraticArb, (spec) => {
        const q = quadratic(spec);
        const graph = new RecordingGraph();
        const layout = buildCutGraph(q, graph);
        let best = Number.POSITIVE_INFINITY;
        const x = new Uint8Array(spec.n);
        for (let mask = 0; mask < 2 ** spec.n; mask++) {
          for (let i = 0; i < spec.n; i++) x[i] = (mask >> i) & 1;
          best = Math.min(best, q.evaluate(x));
        }
        const cut = graph.bruteForceMinCut();
        expect(cut.value + layout.constant).toBe(best);
        expect(graph.maxFlow()).toBe(cut.value);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a positive pair coefficient, naming the pair", () => {
    const q = new QuadraticPseudoBoolean({
      numVariables: 3,
      constant: 0,
      linear: new Float64Array(3),
      pairFirst: Int32Array.from([0, 1]),
      pairSecond: Int32Array.from([1, 2]),
      pairCoefficient: Float64Array.from([-1, 2]),
    });
    expect(q.isSubmodular()).toBe(false);
    const graph = new RecordingGraph();
    expect(() => buildCutGraph(q, graph)).toThrow(NonRepresentableTermError);
    expect(() => buildCutGraph(q, graph)).toThrow(/pair 1, \+2·x1·x2, has a positive coefficient/);
    expect(graph.numNodes).toBe(0); // nothing was added
  });

  it("validates the quadratic function's arrays", () => {
    const base = {
      numVariables: 2,
      constant: 0,
      linear: new Float64Array(2),
      pairFirst: Int32Array.from([0]),
      pairSecond: Int32Array.from([1]),
      pairCoefficient: Float64Array.from([-1]),
    };
    expect(() => new QuadraticPseudoBoolean({ ...base, linear: new Float64Array(3) })).toThrow(
      /linear: has 3 entries, expected numVariables = 2/,
    );
    expect(() => new QuadraticPseudoBoolean({ ...base, pairSecond: Int32Array.from([0]) })).toThrow(
      /pair 0: \(x0, x0\) must be two different variables/,
    );
    expect(
      () =>
        new QuadraticPseudoBoolean({ ...base, pairCoefficient: Float64Array.from([Number.NaN]) }),
    ).toThrow(/pairCoefficient\[0\]: must be finite/);
  });
});
