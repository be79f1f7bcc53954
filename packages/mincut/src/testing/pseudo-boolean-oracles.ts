// Brute-force oracles for the tests of src/pseudo-boolean/.
import type { CutGraphBuilder } from "../pseudo-boolean/cut-graph.js";
import type { QuadraticPseudoBoolean } from "../pseudo-boolean/quadratic.js";

/** f over all 2^n assignments, index = bit mask (bit i = x_i). */
export function valueTable(n: number, f: (x: Uint8Array) => number): Float64Array {
  if (n > 24) throw new Error(`refusing to enumerate 2^${n} assignments`);
  const table = new Float64Array(2 ** n);
  const x = new Uint8Array(n);
  for (let mask = 0; mask < table.length; mask++) {
    for (let i = 0; i < n; i++) x[i] = (mask >> i) & 1;
    table[mask] = f(x);
  }
  return table;
}

export function minOf(table: Float64Array): number {
  let best = Number.POSITIVE_INFINITY;
  for (const value of table) if (value < best) best = value;
  return best;
}

/** Submodular iff every second difference f(x+i+j) − f(x+i) − f(x+j) + f(x) is ≤ 0. */
export function isSubmodularTable(n: number, table: Float64Array, slack = 1e-9): boolean {
  for (let mask = 0; mask < table.length; mask++) {
    for (let i = 0; i < n; i++) {
      if ((mask >> i) & 1) continue;
      for (let j = i + 1; j < n; j++) {
        if ((mask >> j) & 1) continue;
        const d =
          table[mask | (1 << i) | (1 << j)]! -
          table[mask | (1 << i)]! -
          table[mask | (1 << j)]! +
          table[mask]!;
        if (d > slack) return false;
      }
    }
  }
  return true;
}

/** For every assignment of the first `numOriginal` variables, the minimum of q over the others. */
export function minOverAuxiliaries(q: QuadraticPseudoBoolean, numOriginal: number): Float64Array {
  const m = q.numVariables - numOriginal;
  if (numOriginal + m > 22) throw new Error(`refusing to enumerate 2^${numOriginal + m}`);
  const out = new Float64Array(2 ** numOriginal).fill(Number.POSITIVE_INFINITY);
  const x = new Uint8Array(q.numVariables);
  for (let mask = 0; mask < 2 ** (numOriginal + m); mask++) {
    for (let i = 0; i < q.numVariables; i++) x[i] = Math.floor(mask / 2 ** i) % 2;
    const low = mask % 2 ** numOriginal;
    const value = q.evaluate(x);
    if (value < out[low]!) out[low] = value;
  }
  return out;
}

/** A CutGraphBuilder that records what it is given. */
export class RecordingGraph implements CutGraphBuilder {
  numNodes = 0;
  readonly edges: [number, number, number, number][] = [];
  readonly terminals: [number, number, number][] = [];

  addNodes(count: number): number {
    const first = this.numNodes;
    this.numNodes += count;
    return first;
  }
  addEdge(from: number, to: number, capacity: number, reverseCapacity: number): void {
    if (from === to) throw new Error("self-loop");
    if (capacity < 0 || reverseCapacity < 0) throw new Error("negative capacity");
    this.edges.push([from, to, capacity, reverseCapacity]);
  }
  addTerminalWeights(node: number, sourceCapacity: number, sinkCapacity: number): void {
    if (sourceCapacity < 0 || sinkCapacity < 0) throw new Error("negative terminal capacity");
    this.terminals.push([node, sourceCapacity, sinkCapacity]);
  }

  /** The capacity of the cut whose sink side is `sink` (1 = sink side). */
  cutCapacity(sink: ArrayLike<number>): number {
    let total = 0;
    for (const [u, v, cap, rev] of this.edges) {
      if (sink[u] === 0 && sink[v] === 1) total += cap;
      if (sink[v] === 0 && sink[u] === 1) total += rev;
    }
    for (const [i, s, t] of this.terminals) total += sink[i] === 1 ? s : t;
    return total;
  }

  /** The minimum over all 2^numNodes cuts, and one cut reaching it. */
  bruteForceMinCut(): { value: number; sink: Uint8Array } {
    if (this.numNodes > 24) throw new Error(`refusing to enumerate 2^${this.numNodes} cuts`);
    // cutCapacity's sum, over flat arrays: 2^21 cuts through the tuples take seconds.
    const from = Int32Array.from(this.edges, (e) => e[0]);
    const to = Int32Array.from(this.edges, (e) => e[1]);
    const capacity = Float64Array.from(this.edges, (e) => e[2]);
    const reverse = Float64Array.from(this.edges, (e) => e[3]);
    const node = Int32Array.from(this.terminals, (t) => t[0]);
    const source = Float64Array.from(this.terminals, (t) => t[1]);
    const sinkSide = Float64Array.from(this.terminals, (t) => t[2]);
    let value = Number.POSITIVE_INFINITY;
    let bestMask = 0;
    for (let mask = 0; mask < 2 ** this.numNodes; mask++) {
      let c = 0;
      for (let e = 0; e < from.length; e++) {
        const u = (mask >> from[e]!) & 1;
        const v = (mask >> to[e]!) & 1;
        if (u === 0 && v === 1) c += capacity[e]!;
        if (v === 0 && u === 1) c += reverse[e]!;
      }
      for (let t = 0; t < node.length; t++) c += (mask >> node[t]!) & 1 ? source[t]! : sinkSide[t]!;
      if (c < value) {
        value = c;
        bestMask = mask;
      }
    }
    const best = Uint8Array.from({ length: this.numNodes }, (_, i) => (bestMask >> i) & 1);
    return { value, sink: best };
  }

  /** Maximum flow by Dinic's algorithm (a test oracle independent of the package's max-flow). */
  maxFlow(): number {
    const n = this.numNodes + 2;
    const source = n - 2;
    const sinkNode = n - 1;
    const head = new Int32Array(n).fill(-1);
    const to: number[] = [];
    const next: number[] = [];
    const cap: number[] = [];
    const arc = (u: number, v: number, c: number, r: number): void => {
      to.push(v);
      cap.push(c);
      next.push(head[u]!);
      head[u] = to.length - 1;
      to.push(u);
      cap.push(r);
      next.push(head[v]!);
      head[v] = to.length - 1;
    };
    for (const [u, v, c, r] of this.edges) arc(u, v, c, r);
    for (const [i, s, t] of this.terminals) {
      if (s > 0) arc(source, i, s, 0);
      if (t > 0) arc(i, sinkNode, t, 0);
    }
    const residual = Float64Array.from(cap);
    const target = Int32Array.from(to);
    const nextArc = Int32Array.from(next);
    const level = new Int32Array(n);
    const current = new Int32Array(n);
    const queue = new Int32Array(n);
    let flow = 0;
    for (;;) {
      level.fill(-1);
      level[source] = 0;
      let qh = 0;
      let qt = 0;
      queue[qt++] = source;
      while (qh < qt) {
        const u = queue[qh++]!;
        for (let e = head[u]!; e >= 0; e = nextArc[e]!) {
          if (residual[e]! > 0 && level[target[e]!]! < 0) {
            level[target[e]!] = level[u]! + 1;
            queue[qt++] = target[e]!;
          }
        }
      }
      if (level[sinkNode]! < 0) return flow;
      current.set(head);
      // Iterative blocking-flow search along level-increasing arcs.
      const pathArcs: number[] = [];
      let u = source;
      for (;;) {
        if (u === sinkNode) {
          let push = Number.POSITIVE_INFINITY;
          for (const e of pathArcs) push = Math.min(push, residual[e]!);
          for (const e of pathArcs) {
            residual[e]! -= push;
            residual[e ^ 1]! += push;
          }
          flow += push;
          pathArcs.length = 0;
          u = source;
          continue;
        }
        let e = current[u]!;
        while (e >= 0 && !(residual[e]! > 0 && level[target[e]!] === level[u]! + 1))
          e = nextArc[e]!;
        current[u] = e;
        if (e >= 0) {
          pathArcs.push(e);
          u = target[e]!;
          continue;
        }
        if (u === source) break;
        level[u] = -1; // dead end
        const back = pathArcs.pop()!;
        u = target[back ^ 1]!;
        current[u] = nextArc[current[u]!]!;
      }
    }
  }
}
