import {
  defineSlave,
  ProblemValidationError,
  type SlaveBinding,
  type SlaveResult,
} from "@lagrange/core";
import type { PatternFactor } from "@lagrange/core/factor-graph";
import { checkLabelCount, checkPatternFactor } from "./pattern-checks.js";

function find(parent: Int32Array, x: number): number {
  while (parent[x] !== x) {
    parent[x] = parent[parent[x]!]!;
    x = parent[x]!;
  }
  return x;
}

/**
 * Exact max-sum over a forest of pairwise pattern factors (the naive DD baseline's spanning-tree
 * slaves, qian-liu2014 §4.1.4). Local position j is global `positions[j]`; each edge is an arity-2
 * pattern factor over two of them, scoring its listed pair or `defaultScore`. The edges must form
 * a forest (parallel edges count as a cycle): a ProblemValidationError names the first edge that
 * closes a cycle.
 *
 * The BFS order and one dense L×L table per edge, oriented (parent label, child label), are built
 * once, so `maximize` is two passes over flat arrays and allocates nothing; its result and labels
 * are reused by the next call. Ties go to the lowest label, at roots and in every backpointer.
 */
export function treeSlave(
  positions: Int32Array,
  edges: readonly PatternFactor[],
  L: number,
  name = "tree",
): SlaveBinding {
  checkLabelCount(L, name);
  const n = positions.length;
  if (n < 1) {
    throw new ProblemValidationError(`${name}.positions`, "expected at least one position");
  }
  const localOf = new Map<number, number>();
  for (let j = 0; j < n; j++) {
    const v = positions[j]!;
    if (v < 0) {
      throw new ProblemValidationError(
        `${name}.positions[${j}]`,
        `expected a position ≥ 0, got ${v}`,
      );
    }
    if (localOf.has(v)) {
      throw new ProblemValidationError(
        `${name}.positions[${j}]`,
        `position ${v} appears twice in one slave`,
      );
    }
    localOf.set(v, j);
  }

  const m = edges.length;
  const first = new Int32Array(m);
  const second = new Int32Array(m);
  const component = new Int32Array(n);
  for (let j = 0; j < n; j++) component[j] = j;
  edges.forEach((factor, e) => {
    const at = `${name}.edges[${e}]`;
    checkPatternFactor(factor, L, at);
    if (factor.variables.length !== 2) {
      throw new ProblemValidationError(
        `${at}.variables`,
        `expected a pairwise pattern factor (2 variables), got ${factor.variables.length}`,
      );
    }
    const ends = [0, 0];
    for (let k = 0; k < 2; k++) {
      const v = factor.variables[k]!;
      const j = localOf.get(v);
      if (j === undefined) {
        throw new ProblemValidationError(
          `${at}.variables[${k}]`,
          `position ${v} is not one of the slave's positions`,
        );
      }
      ends[k] = j;
    }
    const a = find(component, ends[0]!);
    const b = find(component, ends[1]!);
    if (a === b) {
      throw new ProblemValidationError(
        at,
        `the factor over positions (${factor.variables[0]}, ${factor.variables[1]}) closes a cycle; a tree slave needs its edges to form a forest`,
      );
    }
    component[a] = b;
    first[e] = ends[0]!;
    second[e] = ends[1]!;
  });

  // CSR adjacency, so the BFS below touches no per-node arrays of arrays.
  const degree = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) {
    degree[first[e]! + 1]!++;
    degree[second[e]! + 1]!++;
  }
  for (let j = 0; j < n; j++) degree[j + 1]! += degree[j]!;
  const fill = degree.slice(0, n);
  const adjacentEdge = new Int32Array(2 * m);
  for (let e = 0; e < m; e++) {
    adjacentEdge[fill[first[e]!]!++] = e;
    adjacentEdge[fill[second[e]!]!++] = e;
  }

  // Parents precede children in `order`, so one forward pass decodes after one backward pass.
  const order = new Int32Array(n);
  const parent = new Int32Array(n).fill(-1);
  const parentEdge = new Int32Array(n).fill(-1);
  const visited = new Uint8Array(n);
  let tail = 0;
  for (let root = 0; root < n; root++) {
    if (visited[root]) continue;
    visited[root] = 1;
    let head = tail;
    order[tail++] = root;
    while (head < tail) {
      const u = order[head++]!;
      for (let k = degree[u]!; k < degree[u + 1]!; k++) {
        const e = adjacentEdge[k]!;
        const v = first[e] === u ? second[e]! : first[e]!;
        if (visited[v]) continue;
        visited[v] = 1;
        parent[v] = u;
        parentEdge[v] = e;
        order[tail++] = v;
      }
    }
  }

  // In a forest every edge is the parent edge of exactly one node: node v's table sits at
  // parentEdge[v]·L², indexed [parent label · L + child label].
  const LL = L * L;
  const table = new Float64Array(m * LL);
  for (let v = 0; v < n; v++) {
    const e = parentEdge[v]!;
    if (e < 0) continue;
    const factor = edges[e]!;
    const childFirst = first[e] === v;
    const offset = e * LL;
    table.fill(factor.defaultScore, offset, offset + LL);
    const { patterns, scores } = factor;
    for (let p = 0; p < scores.length; p++) {
      const y0 = patterns[2 * p]!;
      const y1 = patterns[2 * p + 1]!;
      table[offset + (childFirst ? y1 * L + y0 : y0 * L + y1)] = scores[p]!;
    }
  }

  const size = n * L;
  const belief = new Float64Array(size);
  const backpointer = new Int32Array(size);
  const labels = new Int32Array(n);
  const result: { labels: Int32Array; value: number } = { labels, value: 0 };

  const maximize = (adjustment: Float64Array): SlaveResult => {
    if (adjustment.length !== size) {
      throw new ProblemValidationError(
        `${name}.adjustment`,
        `expected length n·L = ${size}, got ${adjustment.length}`,
      );
    }
    belief.set(adjustment);
    for (let k = n - 1; k >= 0; k--) {
      const v = order[k]!;
      const u = parent[v]!;
      if (u < 0) continue;
      const offset = parentEdge[v]! * LL;
      const row = v * L;
      for (let a = 0; a < L; a++) {
        const cell = offset + a * L;
        let best = table[cell]! + belief[row]!;
        let arg = 0;
        for (let b = 1; b < L; b++) {
          const s = table[cell + b]! + belief[row + b]!;
          if (s > best) {
            best = s;
            arg = b;
          }
        }
        backpointer[row + a] = arg;
        belief[u * L + a]! += best;
      }
    }
    let value = 0;
    for (let k = 0; k < n; k++) {
      const v = order[k]!;
      const u = parent[v]!;
      if (u >= 0) {
        labels[v] = backpointer[v * L + labels[u]!]!;
        continue;
      }
      const row = v * L;
      let best = belief[row]!;
      let arg = 0;
      for (let t = 1; t < L; t++) {
        if (belief[row + t]! > best) {
          best = belief[row + t]!;
          arg = t;
        }
      }
      labels[v] = arg;
      value += best;
    }
    result.value = value;
    return result;
  };

  const score = (y: ArrayLike<number>): number => {
    let total = 0;
    for (let v = 0; v < n; v++) {
      const u = parent[v]!;
      if (u >= 0) total += table[parentEdge[v]! * LL + y[u]! * L + y[v]!]!;
    }
    return total;
  };

  // A copy, so a caller reusing its array cannot move the slave's positions under it.
  return {
    slave: defineSlave({ name, n, L, maximize, score }),
    positions: Int32Array.from(positions),
  };
}
