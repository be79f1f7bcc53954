import type { BinaryFactor } from "@lagrange/core/dual-decomposition";

/**
 * The dependency-parsing factors of AD3's `.fg` files: a spanning arborescence over arc
 * variables (ARBORESCENCE) and head automata scoring consecutive modifiers of one head
 * (HEAD_AUTOMATON, GRANDPARENT_HEAD_AUTOMATON). MAP oracles only; the master's active-set method
 * does the quadratic step, as AD3's GenericFactor does for them.
 */

/**
 * The best arborescence rooted at node 0 over `n` nodes (Chu–Liu–Edmonds), `score[h * n + m]` the
 * arc h→m's score (−∞ for a missing arc): writes each node's head to `heads` (heads[0] = −1) and
 * returns the total, or −∞ when some node cannot be reached from the root.
 */
export function maximumArborescence(n: number, score: Float64Array, heads: Int32Array): number {
  heads[0] = -1;
  if (n <= 1) return 0;
  if (!contract(n, score, heads)) return -Infinity;
  let total = 0;
  for (let m = 1; m < n; ++m) total += score[heads[m]! * n + m]!;
  return total;
}

/**
 * One level of Chu–Liu–Edmonds over `size` nodes with dense scores `s` (size × size), node 0 the
 * root; writes the chosen head of each node (in this level's numbering) to `heads`. Returns false
 * when no arborescence exists.
 */
function contract(size: number, s: Float64Array, heads: Int32Array): boolean {
  for (let m = 1; m < size; ++m) {
    let best = -Infinity;
    let arg = -1;
    for (let h = 0; h < size; ++h) {
      if (h === m) continue;
      const value = s[h * size + m]!;
      if (value > best) {
        best = value;
        arg = h;
      }
    }
    if (arg < 0) return false;
    heads[m] = arg;
  }
  heads[0] = -1;
  // Find a cycle among the chosen heads.
  const mark = new Int32Array(size).fill(-1);
  let cycleNode = -1;
  for (let start = 1; start < size && cycleNode < 0; ++start) {
    let v = start;
    while (v > 0 && mark[v] === -1) {
      mark[v] = start;
      v = heads[v]!;
    }
    if (v > 0 && mark[v] === start) cycleNode = v;
  }
  if (cycleNode < 0) return true;

  const inCycle = new Uint8Array(size);
  let v = cycleNode;
  do {
    inCycle[v] = 1;
    v = heads[v]!;
  } while (v !== cycleNode);
  // New numbering: the nodes outside the cycle keep their order, the cycle becomes the last node.
  const index = new Int32Array(size);
  let next = 0;
  for (let u = 0; u < size; ++u) if (!inCycle[u]) index[u] = next++;
  const c = next;
  const small = c + 1;
  for (let u = 0; u < size; ++u) if (inCycle[u]) index[u] = c;
  const t = new Float64Array(small * small).fill(-Infinity);
  // For arcs into the cycle, which cycle node they enter; for arcs out of it, which node leaves.
  const enters = new Int32Array(small).fill(-1);
  const leaves = new Int32Array(small).fill(-1);
  for (let u = 0; u < size; ++u) {
    for (let w = 1; w < size; ++w) {
      if (u === w) continue;
      const value = s[u * size + w]!;
      if (value === -Infinity) continue;
      if (inCycle[u] && inCycle[w]) continue;
      if (inCycle[w]) {
        const adjusted = value - s[heads[w]! * size + w]!;
        const k = index[u]! * small + c;
        if (adjusted > t[k]!) {
          t[k] = adjusted;
          enters[index[u]!] = w;
        }
      } else if (inCycle[u]) {
        const k = c * small + index[w]!;
        if (value > t[k]!) {
          t[k] = value;
          leaves[index[w]!] = u;
        }
      } else {
        t[index[u]! * small + index[w]!] = value;
      }
    }
  }
  const smallHeads = new Int32Array(small);
  if (!contract(small, t, smallHeads)) return false;
  // Expand: the cycle keeps its arcs but the one the chosen entering arc replaces.
  const original = new Int32Array(small);
  for (let u = 0; u < size; ++u) if (!inCycle[u]) original[index[u]!] = u;
  const cycleHeads = new Int32Array(size);
  for (let u = 0; u < size; ++u) cycleHeads[u] = heads[u]!;
  for (let w = 1; w < size; ++w) {
    if (inCycle[w]) {
      heads[w] = cycleHeads[w]!;
    } else {
      const h = smallHeads[index[w]!]!;
      heads[w] = h === c ? leaves[index[w]!]! : original[h]!;
    }
  }
  const from = smallHeads[c]!;
  heads[enters[from]!] = original[from]!;
  return true;
}

/**
 * AD3's ARBORESCENCE: its variables are arcs `heads[r] → modifiers[r]` over nodes 0..length−1
 * (node 0 the root); the configurations are the arc sets forming a spanning arborescence rooted
 * at 0 (the root may have several children), all scoring 0.
 */
export function arborescenceFactor(
  length: number,
  arcHeads: Int32Array,
  arcModifiers: Int32Array,
): BinaryFactor {
  const size = arcHeads.length;
  if (arcModifiers.length !== size) throw new RangeError("one modifier per arc");
  if (length < 1) throw new RangeError("an arborescence needs the root");
  const arcOf = new Int32Array(length * length).fill(-1);
  for (let r = 0; r < size; ++r) {
    const h = arcHeads[r]!;
    const m = arcModifiers[r]!;
    if (h < 0 || h >= length || m < 1 || m >= length || h === m) {
      throw new RangeError(
        `arc ${h}→${m} is not an arc over nodes 0..${length - 1} into a non-root node`,
      );
    }
    if (arcOf[h * length + m]! >= 0) throw new RangeError(`arc ${h}→${m} appears twice`);
    arcOf[h * length + m] = r;
  }
  const scores = new Float64Array(length * length);
  const heads = new Int32Array(length);
  const visited = new Int32Array(length);
  return {
    name: "ARBORESCENCE",
    size,
    map(adjustment: Float64Array, out: Float64Array): number {
      scores.fill(-Infinity);
      for (let r = 0; r < size; ++r) {
        scores[arcHeads[r]! * length + arcModifiers[r]!] = adjustment[r]!;
      }
      out.fill(0);
      const value = maximumArborescence(length, scores, heads);
      if (value === -Infinity) return value;
      for (let m = 1; m < length; ++m) out[arcOf[heads[m]! * length + m]!] = 1;
      return value;
    },
    score(z: ArrayLike<number>): number {
      heads.fill(-1);
      for (let r = 0; r < size; ++r) {
        const value = z[r]!;
        if (value === 0) continue;
        if (value !== 1) return -Infinity;
        const m = arcModifiers[r]!;
        if (heads[m]! >= 0) return -Infinity;
        heads[m] = arcHeads[r]!;
      }
      // Every node has a head and reaches the root without a cycle.
      visited.fill(0);
      visited[0] = 1;
      for (let m = 1; m < length; ++m) {
        let v = m;
        let steps = 0;
        while (visited[v] === 0) {
          if (heads[v]! < 0 || ++steps > length) return -Infinity;
          v = heads[v]!;
        }
        v = m;
        while (visited[v] === 0) {
          visited[v] = 1;
          v = heads[v]!;
        }
      }
      return 0;
    },
  };
}

/** Index of sibling score (m, s), 0 ≤ m < s ≤ length, in AD3's order (m outer, s inner). */
function siblingOffsets(length: number): Int32Array {
  const offsets = new Int32Array(length + 1);
  for (let m = 0; m < length; ++m) offsets[m + 1] = offsets[m]! + (length - m);
  return offsets;
}

/** Number of sibling scores of a head automaton over `length − 1` modifiers. */
export function siblingScoreCount(length: number): number {
  return (length * (length + 1)) / 2;
}

/**
 * A head automaton over modifiers 1..length−1 (local variable m−1 is modifier m): the score of a
 * set of modifiers is the sum of `siblings[(m, s)]` over consecutive chosen modifiers, m = 0
 * standing for the start and s = length for the end; with grandparents (AD3's
 * GRANDPARENT_HEAD_AUTOMATON) the first `grandparents` local variables pick exactly one
 * grandparent g, and each chosen modifier m adds `grandScores[g * (length − 1) + m − 1]`.
 */
function headAutomaton(
  name: string,
  length: number,
  grandparents: number,
  grandScores: Float64Array,
  siblings: Float64Array,
): BinaryFactor {
  if (length < 1) throw new RangeError("a head automaton needs at least the start state");
  const offsets = siblingOffsets(length);
  if (siblings.length !== offsets[length]) {
    throw new RangeError(`${name} needs ${offsets[length]} sibling scores, got ${siblings.length}`);
  }
  if (grandScores.length !== grandparents * (length - 1)) {
    throw new RangeError(
      `${name} needs ${grandparents * (length - 1)} grandparent scores, got ${grandScores.length}`,
    );
  }
  const sibling = (m: number, s: number): number => siblings[offsets[m]! + s - m - 1]!;
  const size = grandparents + length - 1;
  const values = new Float64Array(length);
  const back = new Int32Array(length);
  const bestBack = new Int32Array(length);

  /** Best chain for grandparent g (−1: none); leaves the chain in `back`, returns its last node. */
  const chain = (adjustment: Float64Array, g: number): [number, number] => {
    values[0] = 0;
    for (let m = 1; m < length; ++m) {
      let best = -Infinity;
      let arg = -1;
      for (let j = 0; j < m; ++j) {
        const value = values[j]! + sibling(j, m);
        if (arg < 0 || value > best) {
          best = value;
          arg = j;
        }
      }
      let own = adjustment[grandparents + m - 1]!;
      if (g >= 0) own += grandScores[g * (length - 1) + m - 1]!;
      values[m] = best + own;
      back[m] = arg;
    }
    let best = -Infinity;
    let last = -1;
    for (let j = 0; j < length; ++j) {
      const value = values[j]! + sibling(j, length);
      if (last < 0 || value > best) {
        best = value;
        last = j;
      }
    }
    return [best, last];
  };

  return {
    name,
    size,
    map(adjustment: Float64Array, out: Float64Array): number {
      out.fill(0);
      let bestValue = -Infinity;
      let bestLast = -1;
      let bestG = -1;
      const choices = grandparents === 0 ? 1 : grandparents;
      for (let c = 0; c < choices; ++c) {
        const g = grandparents === 0 ? -1 : c;
        const [value, last] = chain(adjustment, g);
        const total = value + (g >= 0 ? adjustment[g]! : 0);
        if (bestLast < 0 || total > bestValue) {
          bestValue = total;
          bestLast = last;
          bestG = g;
          bestBack.set(back);
        }
      }
      if (bestG >= 0) out[bestG] = 1;
      for (let m = bestLast; m > 0; m = bestBack[m]!) out[grandparents + m - 1] = 1;
      return bestValue;
    },
    score(z: ArrayLike<number>): number {
      let g = -1;
      for (let j = 0; j < size; ++j) {
        const value = z[j]!;
        if (value !== 0 && value !== 1) return -Infinity;
        if (j < grandparents && value === 1) {
          if (g >= 0) return -Infinity;
          g = j;
        }
      }
      if (grandparents > 0 && g < 0) return -Infinity;
      let total = 0;
      let previous = 0;
      for (let m = 1; m < length; ++m) {
        if (z[grandparents + m - 1] !== 1) continue;
        total += sibling(previous, m);
        if (g >= 0) total += grandScores[g * (length - 1) + m - 1]!;
        previous = m;
      }
      return total + sibling(previous, length);
    },
  };
}

/** AD3's HEAD_AUTOMATON over `length − 1` modifier variables, sibling scores in file order. */
export function headAutomatonFactor(length: number, siblings: Float64Array): BinaryFactor {
  return headAutomaton("HEAD_AUTOMATON", length, 0, new Float64Array(0), siblings);
}

/**
 * AD3's GRANDPARENT_HEAD_AUTOMATON: `grandparents` variables (exactly one on) then `length − 1`
 * modifier variables; grandparent scores (grandparent outer) then sibling scores, in file order.
 */
export function grandparentHeadAutomatonFactor(
  length: number,
  grandparents: number,
  grandScores: Float64Array,
  siblings: Float64Array,
): BinaryFactor {
  if (grandparents < 1) throw new RangeError("a grandparent head automaton needs a grandparent");
  return headAutomaton("GRANDPARENT_HEAD_AUTOMATON", length, grandparents, grandScores, siblings);
}
