import { ProblemValidationError } from "@lagrange/core";
import { NonRepresentableTermError } from "./errors.js";
import type { QuadraticPseudoBoolean } from "./quadratic.js";

/**
 * The slice of a max-flow graph the construction needs, with the meaning of Kolmogorov's
 * MAXFLOW v3 (`add_node`, `add_edge`, `add_tweights`): the source and the sink are implicit.
 */
export interface CutGraphBuilder {
  /** Adds `count` nodes and returns the index of the first. */
  addNodes(count: number): number;
  /** Adds the arc from→to with `capacity` and the arc to→from with `reverseCapacity`. */
  addEdge(from: number, to: number, capacity: number, reverseCapacity: number): void;
  /** Adds source→node with `sourceCapacity` and node→sink with `sinkCapacity`. */
  addTerminalWeights(node: number, sourceCapacity: number, sinkCapacity: number): void;
}

/** Where {@link buildCutGraph} put the function. */
export interface CutGraphLayout {
  /** Variable i is node `firstNode + i`. */
  readonly firstNode: number;
  readonly numNodes: number;
  /** min_x Q(x) = (minimum cut capacity) + constant; for every cut, Q(x) = capacity + constant. */
  readonly constant: number;
}

/**
 * Builds the s-t graph of a submodular quadratic energy Q (every pair coefficient ≤ 0) with
 * **x_i = 1 ⇔ node i on the sink side** (the convention of the paper and the fixtures). Each pair
 * `q·x_i·x_j` (q < 0) becomes the arc i→j of capacity −q plus `q·x_j` (since
 * `q·x_i·x_j = −q·(1 − x_i)·x_j + q·x_j`); each resulting linear coefficient c_i > 0 becomes
 * source→i of capacity c_i (paid when x_i = 1), c_i < 0 becomes i→sink of capacity −c_i (paid when
 * x_i = 0) and adds c_i to the constant. Every cut's capacity plus `constant` is Q at the cut's
 * assignment, so a minimum cut gives a minimiser. Refuses a positive pair coefficient.
 */
export function buildCutGraph(q: QuadraticPseudoBoolean, graph: CutGraphBuilder): CutGraphLayout {
  const n = q.numVariables;
  const unary = Float64Array.from(q.linear);
  for (let p = 0; p < q.numPairs; p++) {
    const w = q.pairCoefficient[p]!;
    if (w > 0) {
      const i = q.pairFirst[p]!;
      const j = q.pairSecond[p]!;
      throw new NonRepresentableTermError(
        { kind: "monomial", variables: [i, j], values: [1, 1], coefficient: w, termIndices: [] },
        [i, j],
        w,
        `pair ${p}, +${w}·x${i}·x${j}, has a positive coefficient: the function is not submodular ` +
          "and has no cut graph (reduce it with reduceToQuadratic, which makes every pair ≤ 0 or says why it cannot)",
      );
    }
  }
  const firstNode = graph.addNodes(n);
  if (!Number.isSafeInteger(firstNode)) {
    throw new ProblemValidationError("addNodes", `must return a node index, got ${firstNode}`);
  }
  for (let p = 0; p < q.numPairs; p++) {
    const w = q.pairCoefficient[p]!;
    if (w === 0) continue;
    const j = q.pairSecond[p]!;
    graph.addEdge(firstNode + q.pairFirst[p]!, firstNode + j, -w, 0);
    unary[j]! += w;
  }
  let constant = q.constant;
  for (let i = 0; i < n; i++) {
    const c = unary[i]!;
    if (c > 0) graph.addTerminalWeights(firstNode + i, c, 0);
    else if (c < 0) {
      graph.addTerminalWeights(firstNode + i, 0, -c);
      constant += c;
    }
  }
  return { firstNode, numNodes: n, constant };
}

/**
 * The assignment a cut gives: `x_i = 1` exactly when node `firstNode + i` is on the sink side.
 * `count` (default all of the layout's nodes) keeps the first variables only, e.g. the original
 * ones of a reduction without its auxiliaries.
 */
export function assignmentFromCut(
  layout: CutGraphLayout,
  isSinkSide: (node: number) => boolean,
  count: number = layout.numNodes,
): Uint8Array {
  if (!Number.isSafeInteger(count) || count < 0 || count > layout.numNodes) {
    throw new ProblemValidationError("count", `must be in 0 … ${layout.numNodes}, got ${count}`);
  }
  const x = new Uint8Array(count);
  for (let i = 0; i < count; i++) x[i] = isSinkSide(layout.firstNode + i) ? 1 : 0;
  return x;
}
