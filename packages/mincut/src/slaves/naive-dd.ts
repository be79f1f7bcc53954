import { ProblemValidationError, type SlaveBinding } from "@lagrange/core";
import type { PatternFactor } from "@lagrange/core/factor-graph";
import { checkPatternFactor } from "./pattern-checks.js";
import { phrasePairSlave } from "./phrase-pair-slave.js";
import { treeSlave } from "./tree-slave.js";

export { phrasePairSlave } from "./phrase-pair-slave.js";
export { treeSlave } from "./tree-slave.js";

/**
 * Splits the edges of a multigraph on nodes 0..n−1 into forests, greedily as in qian-liu2014
 * §4.1.4: each round takes a maximum spanning forest where uncovered edges weigh 1 and covered
 * ones 0. Covered edges add nothing to such a forest, so the round is Kruskal over the uncovered
 * edges alone, in index order; every maximal forest of the uncovered graph has the same, maximum,
 * size. Returns one list of edge indices (increasing) per forest; parallel edges land in different
 * forests. A self-loop fits no forest and is refused.
 */
export function greedySpanningForests(
  n: number,
  edges: ReadonlyArray<readonly [number, number]>,
): number[][] {
  if (!Number.isInteger(n) || n < 0) {
    throw new ProblemValidationError("forests.n", `expected an integer ≥ 0, got ${n}`);
  }
  const m = edges.length;
  for (let e = 0; e < m; e++) {
    const [a, b] = edges[e]!;
    for (const x of [a, b]) {
      if (!Number.isInteger(x) || x < 0 || x >= n) {
        throw new ProblemValidationError(
          `forests.edges[${e}]`,
          `expected nodes in 0..${n - 1}, got (${a}, ${b})`,
        );
      }
    }
    if (a === b) {
      throw new ProblemValidationError(
        `forests.edges[${e}]`,
        `a self-loop on node ${a} fits in no forest`,
      );
    }
  }
  const component = new Int32Array(n);
  const uncovered = Int32Array.from({ length: m }, (_, e) => e);
  let left = m;
  const forests: number[][] = [];
  while (left > 0) {
    for (let v = 0; v < n; v++) component[v] = v;
    const forest: number[] = [];
    let kept = 0;
    for (let i = 0; i < left; i++) {
      const e = uncovered[i]!;
      const [a, b] = edges[e]!;
      const ra = find(component, a);
      const rb = find(component, b);
      if (ra === rb) {
        uncovered[kept++] = e;
      } else {
        component[ra] = rb;
        forest.push(e);
      }
    }
    forests.push(forest);
    left = kept;
  }
  return forests;
}

function find(parent: Int32Array, x: number): number {
  while (parent[x] !== x) {
    parent[x] = parent[parent[x]!]!;
    x = parent[x]!;
  }
  return x;
}

/**
 * The naive dual-decomposition baseline's slaves for a document's pattern factors (qian-liu2014
 * §4.1.4), all over one label count L: the pairwise factors (skip edges between identical words)
 * are split by {@link greedySpanningForests} into as few forests as the greedy rule gives, one
 * {@link treeSlave} each over the positions its edges touch; every other factor (a pair of
 * identical multi-word phrases) gets its own {@link phrasePairSlave}. The chain slave over the
 * unigrams and bigrams is the caller's. Factors are checked up front, so a
 * malformed one is reported as `patterns[i]`; a phrase slave's name carries its factor index.
 */
export function naiveDecomposition(patterns: readonly PatternFactor[], L: number): SlaveBinding[] {
  const bindings: SlaveBinding[] = [];
  const pairwise: number[] = [];
  const nodeOf = new Map<number, number>();
  const ends: [number, number][] = [];
  patterns.forEach((factor, f) => {
    const at = `patterns[${f}]`;
    checkPatternFactor(factor, L, at);
    if (factor.variables.length !== 2) return;
    const pair: [number, number] = [0, 0];
    for (let k = 0; k < 2; k++) {
      const v = factor.variables[k]!;
      let node = nodeOf.get(v);
      if (node === undefined) {
        node = nodeOf.size;
        nodeOf.set(v, node);
      }
      pair[k] = node;
    }
    pairwise.push(f);
    ends.push(pair);
  });

  const positionOf = new Int32Array(nodeOf.size);
  for (const [v, node] of nodeOf) positionOf[node] = v;
  const touched = new Uint8Array(nodeOf.size);
  greedySpanningForests(nodeOf.size, ends).forEach((forest, r) => {
    touched.fill(0);
    for (const e of forest) {
      touched[ends[e]![0]] = 1;
      touched[ends[e]![1]] = 1;
    }
    const nodes: number[] = [];
    for (let node = 0; node < touched.length; node++) {
      if (touched[node]) nodes.push(positionOf[node]!);
    }
    nodes.sort((a, b) => a - b);
    const factors = forest.map((e) => patterns[pairwise[e]!]!);
    bindings.push(treeSlave(Int32Array.from(nodes), factors, L, `naive-dd.tree[${r}]`));
  });

  patterns.forEach((factor, f) => {
    if (factor.variables.length === 2) return;
    bindings.push(phrasePairSlave(factor, L, `naive-dd.phrase[patterns[${f}]]`));
  });
  return bindings;
}
