import type { MaxflowInstance } from "./graph-format.js";

/** What {@link edmondsKarp} returns: the flow value and the two canonical minimum cuts. */
export interface ReferenceMaxflow {
  readonly flow: number;
  /** 1 for the nodes reachable from the source in the final residual graph. */
  readonly smallest: Uint8Array;
  /** 1 for the nodes from which the sink cannot be reached in the final residual graph. */
  readonly largest: Uint8Array;
}

/**
 * Edmonds–Karp on a dense residual matrix: an independent, deliberately simple max-flow for
 * checking {@link MaxflowGraph} on small instances (O(V·E²) time, O(V²) memory; meant for a few
 * hundred nodes at most). `terminals` overrides the instance's terminal capacities (per node).
 */
export function edmondsKarp(
  instance: MaxflowInstance,
  terminals?: { readonly source: Float64Array; readonly sink: Float64Array },
): ReferenceMaxflow {
  const n = instance.n;
  const V = n + 2;
  const s = n;
  const t = n + 1;
  const cap = new Float64Array(V * V);
  for (let e = 0; e < instance.m; e++) {
    const u = instance.edgeFrom[e]!;
    const v = instance.edgeTo[e]!;
    cap[u * V + v]! += instance.edgeCap[e]!;
    cap[v * V + u]! += instance.edgeRevCap[e]!;
  }
  if (terminals === undefined) {
    for (let k = 0; k < instance.terminalNode.length; k++) {
      const i = instance.terminalNode[k]!;
      cap[s * V + i]! += instance.terminalSource[k]!;
      cap[i * V + t]! += instance.terminalSink[k]!;
    }
  } else {
    for (let i = 0; i < n; i++) {
      cap[s * V + i]! += terminals.source[i]!;
      cap[i * V + t]! += terminals.sink[i]!;
    }
  }
  const previous = new Int32Array(V);
  const queue = new Int32Array(V);
  let flow = 0;
  for (;;) {
    previous.fill(-1);
    previous[s] = s;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    while (head < tail && previous[t] === -1) {
      const u = queue[head++]!;
      for (let v = 0; v < V; v++) {
        if (previous[v] === -1 && cap[u * V + v]! > 0) {
          previous[v] = u;
          queue[tail++] = v;
        }
      }
    }
    if (previous[t] === -1) break;
    let bottleneck = Number.POSITIVE_INFINITY;
    for (let v = t; v !== s; v = previous[v]!) {
      bottleneck = Math.min(bottleneck, cap[previous[v]! * V + v]!);
    }
    for (let v = t; v !== s; v = previous[v]!) {
      const u = previous[v]!;
      cap[u * V + v]! -= bottleneck;
      cap[v * V + u]! += bottleneck;
    }
    flow += bottleneck;
  }
  // The canonical cuts: residual reachability from the source, and to the sink.
  const fromSource = reach(cap, V, s, false);
  const toSink = reach(cap, V, t, true);
  const smallest = new Uint8Array(n);
  const largest = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    smallest[i] = fromSource[i]!;
    largest[i] = toSink[i]! ? 0 : 1;
  }
  return { flow, smallest, largest };
}

function reach(cap: Float64Array, V: number, start: number, backwards: boolean): Uint8Array {
  const seen = new Uint8Array(V);
  const stack = [start];
  seen[start] = 1;
  while (stack.length > 0) {
    const u = stack.pop()!;
    for (let v = 0; v < V; v++) {
      const c = backwards ? cap[v * V + u]! : cap[u * V + v]!;
      if (!seen[v] && c > 0) {
        seen[v] = 1;
        stack.push(v);
      }
    }
  }
  return seen;
}
