import { lagrangeErrorCode, ProblemValidationError } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MaxflowGraph, type MaxflowKernel, Segment } from "./graph.js";
import { buildMaxflowGraph, cutCapacity, type MaxflowInstance } from "./graph-format.js";
import { edmondsKarp } from "./reference.js";

/** A mutable instance: edges in order and the current terminal totals per node. */
interface Model {
  n: number;
  from: number[];
  to: number[];
  cap: number[];
  rev: number[];
  source: Float64Array;
  sink: Float64Array;
}

function instanceOf(model: Model): MaxflowInstance {
  const terminalNode: number[] = [];
  for (let i = 0; i < model.n; i++) {
    if (model.source[i] !== 0 || model.sink[i] !== 0) terminalNode.push(i);
  }
  return {
    n: model.n,
    m: model.from.length,
    edgeFrom: Int32Array.from(model.from),
    edgeTo: Int32Array.from(model.to),
    edgeCap: Float64Array.from(model.cap),
    edgeRevCap: Float64Array.from(model.rev),
    terminalNode: Int32Array.from(terminalNode),
    terminalSource: Float64Array.from(terminalNode, (i) => model.source[i]!),
    terminalSink: Float64Array.from(terminalNode, (i) => model.sink[i]!),
  };
}

/** The minimum over all 2^n source sides, and the intersection and union of the minimisers. */
function bruteForce(instance: MaxflowInstance) {
  const n = instance.n;
  let best = Number.POSITIVE_INFINITY;
  let intersection = 0;
  let union = 0;
  const side = new Uint8Array(n);
  for (let mask = 0; mask < 1 << n; mask++) {
    for (let i = 0; i < n; i++) side[i] = (mask >> i) & 1;
    const c = cutCapacity(instance, side);
    if (c < best) {
      best = c;
      intersection = mask;
      union = mask;
    } else if (c === best) {
      intersection &= mask;
      union |= mask;
    }
  }
  const bits = (mask: number) => Uint8Array.from({ length: n }, (_, i) => (mask >> i) & 1);
  return { flow: best, smallest: bits(intersection), largest: bits(union) };
}

const same = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * After a fresh solve, the arc residuals are a feasible flow of value `flow`: residuals ≥ 0,
 * each edge's two residuals consistent, conservation at every node, terminal flows within their
 * capacities. With a cut of the same capacity this certifies optimality by itself.
 */
function checkFlow(graph: MaxflowGraph, model: Model, flow: number): void {
  const net = new Float64Array(model.n);
  for (let e = 0; e < model.from.length; e++) {
    const forward = graph.edgeResidual(e);
    const backward = graph.edgeResidual(e, true);
    expect(forward).toBeGreaterThanOrEqual(0);
    expect(backward).toBeGreaterThanOrEqual(0);
    const x = model.cap[e]! - forward;
    expect(backward).toBe(model.rev[e]! + x);
    net[model.from[e]!]! += x;
    net[model.to[e]!]! -= x;
  }
  let value = 0;
  for (let i = 0; i < model.n; i++) {
    const r = graph.terminalResidual(i);
    const fromSource = model.source[i]! - Math.max(r, 0);
    const toSink = model.sink[i]! - Math.max(-r, 0);
    expect(fromSource).toBeGreaterThanOrEqual(0);
    expect(toSink).toBeGreaterThanOrEqual(0);
    expect(fromSource - toSink).toBe(net[i]);
    value += fromSource;
  }
  expect(value).toBe(flow);
}

// Integers, and multiples of 1/64 (exact in doubles, as the frac64 fixture).
const capacity = fc.oneof(
  fc.integer({ min: 0, max: 12 }),
  fc.integer({ min: 0, max: 12 * 64 }).map((x) => x / 64),
  fc.constant(0),
);

const model = (maxNodes: number, maxEdges: number, minNodes = 1) =>
  fc.integer({ min: minNodes, max: maxNodes }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(
        fc.record({
          u: fc.integer({ min: 0, max: n - 1 }),
          d: fc.integer({ min: 1, max: Math.max(1, n - 1) }),
          cap: capacity,
          rev: fc.oneof(capacity, fc.constant(0)),
        }),
        { maxLength: n === 1 ? 0 : maxEdges },
      ),
      terminals: fc.array(fc.tuple(capacity, capacity), { minLength: n, maxLength: n }),
    }),
  );

function toModel(arb: {
  n: number;
  edges: { u: number; d: number; cap: number; rev: number }[];
  terminals: [number, number][];
}): Model {
  return {
    n: arb.n,
    from: arb.edges.map((e) => e.u),
    to: arb.edges.map((e) => (e.u + e.d) % arb.n),
    cap: arb.edges.map((e) => e.cap),
    rev: arb.edges.map((e) => e.rev),
    source: Float64Array.from(arb.terminals, ([s]) => s),
    sink: Float64Array.from(arb.terminals, ([, t]) => t),
  };
}

function checkReuse(graphs: ReturnType<typeof model>, runs: number, kernel: MaxflowKernel): void {
  const op = (n: number) =>
    fc.oneof(
      fc.record({
        kind: fc.constant("set" as const),
        i: fc.integer({ min: 0, max: n - 1 }),
        s: capacity,
        t: capacity,
      }),
      fc.record({
        kind: fc.constant("add" as const),
        i: fc.integer({ min: 0, max: n - 1 }),
        s: fc.integer({ min: -6, max: 6 }),
        t: fc.integer({ min: -6, max: 6 }),
      }),
      fc.record({
        kind: fc.constant("edge" as const),
        i: fc.integer({ min: 0, max: n - 1 }),
        s: fc.integer({ min: 1, max: Math.max(1, n - 1) }),
        t: capacity,
      }),
      fc.record({ kind: fc.constant("mark" as const), i: fc.integer({ min: 0, max: n - 1 }) }),
    );
  const arb = graphs.chain((g) =>
    fc.record({
      graph: fc.constant(g),
      rounds: fc.array(
        fc.record({ ops: fc.array(op(g.n), { maxLength: 6 }), track: fc.boolean() }),
        { minLength: 1, maxLength: 8 },
      ),
    }),
  );
  fc.assert(
    fc.property(arb, ({ graph: g, rounds }) => {
      const m = toModel(g);
      const graph = buildMaxflowGraph(
        instanceOf(m),
        new MaxflowGraph({ nodes: 2, edges: 2, kernel }),
      );
      graph.maxflow();
      for (const round of rounds) {
        const before = { smallest: graph.minCut("smallest"), largest: graph.minCut("largest") };
        for (const o of round.ops) {
          if (o.kind === "set") {
            graph.setTerminalWeights(o.i, o.s, o.t);
            m.source[o.i] = o.s;
            m.sink[o.i] = o.t;
          } else if (o.kind === "add") {
            // Keep each total ≥ 0: lower by at most what is there.
            const ds = Math.max(o.s, -m.source[o.i]!);
            const dt = Math.max(o.t, -m.sink[o.i]!);
            graph.addTerminalWeights(o.i, ds, dt);
            m.source[o.i]! += ds;
            m.sink[o.i]! += dt;
          } else if (o.kind === "edge") {
            if (m.n === 1) continue;
            const v = (o.i + o.s) % m.n;
            expect(graph.addEdge(o.i, v, o.t, 1)).toBe(m.from.length);
            m.from.push(o.i);
            m.to.push(v);
            m.cap.push(o.t);
            m.rev.push(1);
          } else {
            graph.markNode(o.i);
          }
        }
        const flow = graph.maxflow(true, round.track);
        const instance = instanceOf(m);
        const ek = edmondsKarp(instance);
        expect(flow).toBe(ek.flow);
        const smallest = graph.minCut("smallest");
        const largest = graph.minCut("largest");
        expect(same(smallest, ek.smallest)).toBe(true);
        expect(same(largest, ek.largest)).toBe(true);
        expect(cutCapacity(instance, smallest)).toBe(flow);
        expect(graph.terminalSource(0)).toBe(m.source[0]);
        expect(graph.terminalSink(0)).toBe(m.sink[0]);

        const changed = graph.changedNodes();
        if (!round.track) {
          expect(changed).toBeNull();
        } else {
          // A node outside the changed list kept its segment.
          const listed = new Set(changed);
          expect(listed.size).toBe(changed!.length);
          for (let i = 0; i < m.n; i++) {
            if (listed.has(i)) continue;
            expect(smallest[i]).toBe(before.smallest[i]);
            expect(largest[i]).toBe(before.largest[i]);
          }
        }
        // A fresh solve of the same instance agrees.
        const fresh = buildMaxflowGraph(instance);
        expect(fresh.maxflow()).toBe(flow);
        checkFlow(fresh, m, flow);
      }
    }),
    { numRuns: runs },
  );
}

describe.each(["wasm", "js"] as const)(
  "MaxflowGraph (%s kernel) against brute force and Edmonds–Karp",
  (kernel) => {
    it("flow, canonical cuts and a feasible flow on random small graphs", () => {
      fc.assert(
        fc.property(model(9, 20), (arb) => {
          const m = toModel(arb);
          const instance = instanceOf(m);
          const graph = buildMaxflowGraph(
            instance,
            new MaxflowGraph({ nodes: 1, edges: 1, kernel }),
          );
          const flow = graph.maxflow();
          const brute = bruteForce(instance);
          const ek = edmondsKarp(instance);
          expect(flow).toBe(brute.flow);
          expect(flow).toBe(ek.flow);
          const smallest = graph.minCut("smallest");
          const largest = graph.minCut("largest");
          // The smallest (largest) source side is the intersection (union) of all minimum cuts.
          expect(same(smallest, brute.smallest)).toBe(true);
          expect(same(largest, brute.largest)).toBe(true);
          expect(same(smallest, ek.smallest) && same(largest, ek.largest)).toBe(true);
          checkFlow(graph, m, flow);
        }),
        { numRuns: 400 },
      );
    });

    it("repeated terminal updates (set, add, new edges) solved with reuse match a fresh solve", () => {
      checkReuse(model(8, 14), 300, kernel);
    });

    it("medium graphs: flow and cuts against Edmonds–Karp, fresh and with reuse", () => {
      fc.assert(
        fc.property(model(60, 200, 10), (arb) => {
          const m = toModel(arb);
          const instance = instanceOf(m);
          const graph = buildMaxflowGraph(instance, new MaxflowGraph({ kernel }));
          const flow = graph.maxflow();
          const ek = edmondsKarp(instance);
          expect(flow).toBe(ek.flow);
          expect(same(graph.minCut("smallest"), ek.smallest)).toBe(true);
          expect(same(graph.minCut("largest"), ek.largest)).toBe(true);
          checkFlow(graph, m, flow);
        }),
        { numRuns: 150 },
      );
      checkReuse(model(40, 120, 10), 60, kernel);
    });

    it("grows its buffers while nodes and edges are added before and after solving", () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
          let state = seed;
          const random = (k: number) => {
            state = (Math.imul(state, 1103515245) + 12345) >>> 0;
            return (state >>> 8) % k;
          };
          const m: Model = {
            n: 0,
            from: [],
            to: [],
            cap: [],
            rev: [],
            source: new Float64Array(120),
            sink: new Float64Array(120),
          };
          const graph = new MaxflowGraph({ nodes: 1, edges: 1, kernel });
          const grow = (nodes: number, edges: number) => {
            expect(graph.addNodes(nodes)).toBe(m.n);
            m.n += nodes;
            for (let k = 0; k < edges; k++) {
              const u = random(m.n);
              const v = (u + 1 + random(m.n - 1)) % m.n;
              const c = random(9);
              const r = random(3) === 0 ? random(9) : 0;
              graph.addEdge(u, v, c, r);
              m.from.push(u);
              m.to.push(v);
              m.cap.push(c);
              m.rev.push(r);
            }
            for (let k = 0; k < nodes; k++) {
              const i = m.n - 1 - k;
              const s = random(3) === 0 ? random(20) : 0;
              const t = random(3) === 0 ? random(20) : 0;
              graph.addTerminalWeights(i, s, t);
              m.source[i] = s;
              m.sink[i] = t;
            }
          };
          grow(5, 6);
          grow(30, 60);
          let flow = graph.maxflow();
          expect(flow).toBe(edmondsKarp(instanceOf(m)).flow);
          grow(80, 150); // moves the arc region while the search trees point into it
          flow = graph.maxflow(true);
          const ek = edmondsKarp(instanceOf(m));
          expect(flow).toBe(ek.flow);
          expect(same(graph.minCut("smallest"), ek.smallest)).toBe(true);
          expect(graph.nodeCount).toBe(115);
          expect(graph.edgeCount).toBe(216);
        }),
        { numRuns: 40 },
      );
    });
  },
);

describe("the two kernels", () => {
  it("leave identical residual capacities, trees and flows, fresh and with reuse", () => {
    fc.assert(
      fc.property(
        model(30, 90),
        fc.array(fc.tuple(fc.nat(), capacity, capacity), { maxLength: 12 }),
        (arb, updates) => {
          const m = toModel(arb);
          const instance = instanceOf(m);
          const graphs = (["wasm", "js"] as const).map((kernel) =>
            buildMaxflowGraph(instance, new MaxflowGraph({ kernel })),
          );
          const state = (g: MaxflowGraph) => {
            const residuals: number[] = [];
            for (let e = 0; e < g.edgeCount; e++)
              residuals.push(g.edgeResidual(e), g.edgeResidual(e, true));
            for (let i = 0; i < g.nodeCount; i++) residuals.push(g.terminalResidual(i));
            return {
              flow: g.flow,
              residuals,
              cut: [...g.minCut("smallest"), ...g.minCut("largest")],
            };
          };
          for (const g of graphs) g.maxflow();
          expect(state(graphs[0]!)).toEqual(state(graphs[1]!));
          for (const [i, s, t] of updates) {
            for (const g of graphs) {
              g.setTerminalWeights(i % m.n, s, t);
              g.maxflow(true, true);
            }
            expect(state(graphs[0]!)).toEqual(state(graphs[1]!));
            expect([...graphs[0]!.changedNodes()!]).toEqual([...graphs[1]!.changedNodes()!]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("bulk building", () => {
  it("addEdges and addTerminalWeightsMany build the graph a loop of single calls builds", () => {
    fc.assert(
      fc.property(model(20, 60), (arb) => {
        const m = toModel(arb);
        const instance = instanceOf(m);
        const one = new MaxflowGraph();
        one.addNodes(m.n);
        for (let e = 0; e < instance.m; e++) {
          one.addEdge(m.from[e]!, m.to[e]!, m.cap[e]!, m.rev[e]!);
        }
        for (let k = 0; k < instance.terminalNode.length; k++) {
          one.addTerminalWeights(
            instance.terminalNode[k]!,
            instance.terminalSource[k]!,
            instance.terminalSink[k]!,
          );
        }
        const bulk = buildMaxflowGraph(instance);
        expect(bulk.flow).toBe(one.flow);
        expect(bulk.maxflow()).toBe(one.maxflow());
        for (let e = 0; e < instance.m; e++) {
          expect(bulk.edgeResidual(e)).toBe(one.edgeResidual(e));
          expect(bulk.edgeResidual(e, true)).toBe(one.edgeResidual(e, true));
        }
      }),
      { numRuns: 100 },
    );
  });

  it("builds large batches (chunked WebAssembly linking) as single calls do, all or nothing", () => {
    let state = 12345;
    const random = (k: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % k;
    };
    const n = 300;
    const m = 1500;
    const from = Int32Array.from({ length: m }, () => random(n));
    const to = Int32Array.from(from, (u) => (u + 1 + random(n - 1)) % n);
    const cap = Float64Array.from({ length: m }, () => random(50) / 4);
    const rev = Float64Array.from({ length: m }, () => (random(2) === 0 ? 0 : random(50)));
    const nodes = Int32Array.from({ length: n }, (_, i) => i);
    const source = Float64Array.from(nodes, () => (random(3) === 0 ? random(90) : 0));
    const sink = Float64Array.from(nodes, () => (random(3) === 0 ? random(90) : 0));
    for (const kernel of ["wasm", "js"] as const) {
      const bulk = new MaxflowGraph({ kernel });
      bulk.addNodes(n);
      // A bad edge in the third chunk (256 edges each): nothing is added.
      const broken = Int32Array.from(to);
      broken[700] = from[700]!;
      expect(() => bulk.addEdges(from, broken, cap, rev)).toThrow(/^to\[700\]: an edge needs/);
      const badSink = Float64Array.from(sink);
      badSink[123] = Number.POSITIVE_INFINITY;
      expect(() => bulk.addTerminalWeightsMany(nodes, source, badSink)).toThrow(/^capSink\[123\]/);
      expect(bulk.edgeCount).toBe(0);
      expect(bulk.addEdges(from, to, cap, rev)).toBe(0);
      bulk.addTerminalWeightsMany(nodes, source, sink);
      const one = new MaxflowGraph({ kernel });
      one.addNodes(n);
      for (let e = 0; e < m; e++) one.addEdge(from[e]!, to[e]!, cap[e]!, rev[e]!);
      for (let i = 0; i < n; i++) one.addTerminalWeights(i, source[i]!, sink[i]!);
      expect(bulk.flow).toBe(one.flow);
      expect(bulk.maxflow()).toBe(one.maxflow());
      for (let e = 0; e < m; e++) expect(bulk.edgeResidual(e)).toBe(one.edgeResidual(e));
      for (let i = 0; i < n; i++) expect(bulk.terminalSource(i)).toBe(source[i]);
    }
  });

  it("is all or nothing: a bad entry names its index and leaves the graph as it was", () => {
    const g = new MaxflowGraph();
    g.addNodes(3);
    g.addEdge(0, 1, 5, 0);
    g.addTerminalWeights(0, 4, 0);
    g.addTerminalWeights(1, 0, 3);
    const bad: [() => unknown, RegExp][] = [
      [
        () => g.addEdges([1, 2, 0], [2, 0, 0], [1, 1, 1], [0, 0, 0]),
        /^to\[2\]: an edge needs two nodes/,
      ],
      [() => g.addEdges([1, 2], [2, 3], [1, 1], [0, 0]), /^to\[1\]: no node 3/],
      [() => g.addEdges([1, 2], [2, 0], [1, -1], [0, 0]), /^cap\[1\]: expected a finite capacity/],
      [() => g.addEdges([1], [2], [1], [Number.NaN]), /^revCap\[0\]/],
      [() => g.addEdges([1], [2], [1, 2], [0]), /same length/],
      [
        () => g.addTerminalWeightsMany([2, 0], [1, Number.NaN], [0, 0]),
        /^capSource\[1\]: expected a finite/,
      ],
      [() => g.addTerminalWeightsMany([2, 5], [1, 1], [0, 0]), /^i\[1\]: no node 5/],
    ];
    for (const [f, message] of bad) {
      expect(f).toThrow(ProblemValidationError);
      expect(f).toThrow(message);
    }
    expect(g.edgeCount).toBe(1);
    expect(g.maxflow()).toBe(3);
    expect(g.terminalSource(2)).toBe(0);
  });
});

describe("MaxflowGraph API", () => {
  it("follows add_tweights: repeated calls add up, both capacities count", () => {
    const g = new MaxflowGraph();
    g.addNodes(2);
    g.addTerminalWeights(0, 1, 5);
    g.addTerminalWeights(0, 0, 0);
    g.addTerminalWeights(1, 2, 6);
    g.addEdge(0, 1, 3, 4);
    expect(g.maxflow()).toBe(3); // tiny_two_nodes
    expect(g.terminalSource(0)).toBe(1);
    expect(g.terminalSink(1)).toBe(6);
    g.addTerminalWeights(0, 4, 0);
    expect(g.maxflow(true)).toBe(7);
    expect(buildMaxflowGraph(instanceOfGraph(g)).maxflow()).toBe(7);
  });

  it("reports free nodes with the default segment", () => {
    const g = new MaxflowGraph();
    g.addNodes(3);
    g.addEdge(0, 1, 1, 0);
    g.addEdge(1, 2, 1, 0);
    expect(g.maxflow()).toBe(0);
    expect(g.whatSegment(1)).toBe(Segment.Source);
    expect(g.whatSegment(1, Segment.Sink)).toBe(Segment.Sink);
    expect([...g.minCut("smallest")]).toEqual([0, 0, 0]);
    expect([...g.minCut("largest")]).toEqual([1, 1, 1]);
    const out = new Uint8Array(5).fill(7);
    expect(g.minCut("largest", out)).toBe(out);
    expect([...out]).toEqual([1, 1, 1, 7, 7]);
  });

  it("treats maxflow(true) on a first solve as a fresh solve, and reset() empties the graph", () => {
    const g = new MaxflowGraph();
    g.addNodes(2);
    g.addTerminalWeights(0, 5, 0);
    g.addTerminalWeights(1, 0, 4);
    g.addEdge(0, 1, 10, 0);
    expect(g.maxflow(true, true)).toBe(4);
    expect(g.changedNodes()).toBeNull();
    g.reset();
    expect(g.nodeCount).toBe(0);
    expect(g.edgeCount).toBe(0);
    g.addNodes(1);
    g.addTerminalWeights(0, 5, 3);
    expect(g.flow).toBe(3);
    expect(g.maxflow()).toBe(3);
    expect(g.whatSegment(0)).toBe(Segment.Source);
  });

  it("refuses malformed arguments with ProblemValidationError", () => {
    const g = new MaxflowGraph();
    g.addNodes(2);
    const bad: (() => unknown)[] = [
      () => g.addEdge(0, 0, 1, 1),
      () => g.addEdge(0, 2, 1, 1),
      () => g.addEdge(-1, 1, 1, 1),
      () => g.addEdge(0.5, 1, 1, 1),
      () => g.addEdge(0, 1, -1, 1),
      () => g.addEdge(0, 1, 1, Number.NaN),
      () => g.addEdge(0, 1, Number.POSITIVE_INFINITY, 0),
      () => g.addTerminalWeights(2, 1, 1),
      () => g.addTerminalWeights(0, Number.NaN, 1),
      () => g.addTerminalWeights(0, 1, Number.NEGATIVE_INFINITY),
      () => g.setTerminalWeights(0, -1, 0),
      () => g.addNodes(-1),
      () => g.addNodes(1.5),
      () => g.whatSegment(7),
      () => g.markNode(-1),
      () => g.edgeResidual(0),
      () => g.minCut("smallest", new Uint8Array(1)),
    ];
    for (const f of bad) {
      expect(f).toThrow(ProblemValidationError);
      try {
        f();
      } catch (error) {
        expect(lagrangeErrorCode(error)).toBe("invalid-problem");
      }
    }
    expect(() => g.addEdge(0, 1, 0, 0)).not.toThrow();
  });
});

/** The instance a graph was built from, read back through its public getters (no edges). */
function instanceOfGraph(g: MaxflowGraph): MaxflowInstance {
  const n = g.nodeCount;
  const nodes = Int32Array.from({ length: n }, (_, i) => i);
  return {
    n,
    m: 1,
    edgeFrom: Int32Array.of(0),
    edgeTo: Int32Array.of(1),
    edgeCap: Float64Array.of(3),
    edgeRevCap: Float64Array.of(4),
    terminalNode: nodes,
    terminalSource: Float64Array.from(nodes, (i) => g.terminalSource(i)),
    terminalSink: Float64Array.from(nodes, (i) => g.terminalSink(i)),
  };
}
