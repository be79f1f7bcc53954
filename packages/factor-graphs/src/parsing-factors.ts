import type { BinaryFactor } from "@lagrange/core/dual-decomposition";

/**
 * The dependency-parsing factors of AD3's `.fg` files: a spanning arborescence over arc
 * variables (ARBORESCENCE) and head automata scoring consecutive modifiers of one head
 * (HEAD_AUTOMATON, GRANDPARENT_HEAD_AUTOMATON). MAP oracles only; the master's active-set method
 * does the quadratic step, as AD3's GenericFactor does for them, and calls them many times per
 * iteration: every scratch buffer is allocated once per factor.
 */

/**
 * Chu–Liu–Edmonds over nodes 0..n−1 (node 0 the root) and the arcs `arcHeads[r] → arcModifiers[r]`
 * (validated by the caller), with all scratch allocated once. `solve(adjustment, heads)` scores
 * arc r by `adjustment[r]`, writes each node's head in the best arborescence to `heads`
 * (heads[0] = −1), and returns false when some node cannot be reached from the root.
 *
 * Contraction rewrites the representative's row and column of one dense matrix in place instead
 * of building a smaller one. Each level lists its nodes in the order the textbook recursion numbers
 * them (the nodes outside the contracted cycle keep their order, the cycle comes last), so ties
 * resolve exactly as they would there: the first best head in that order wins.
 */
function arborescenceSolver(
  n: number,
  arcHeads: Int32Array,
  arcModifiers: Int32Array,
): (adjustment: Float64Array, heads: Int32Array) => boolean {
  const arcs = arcHeads.length;
  // Transposed scores, w[m * n + h] for the arc h→m (−∞: none), so a head scan reads a row.
  const w = new Float64Array(n * n);
  // Each node's incoming arcs by increasing head: the first level scans only those.
  const arcAt = new Int32Array(n * n).fill(-1);
  for (let r = 0; r < arcs; ++r) arcAt[arcModifiers[r]! * n + arcHeads[r]!] = r;
  const inStart = new Int32Array(n + 1);
  const inArc = new Int32Array(arcs);
  for (let m = 0, k = 0; m < n; ++m) {
    inStart[m] = k;
    for (let h = 0; h < n; ++h) if (arcAt[m * n + h]! >= 0) inArc[k++] = arcAt[m * n + h]!;
    inStart[m + 1] = k;
  }
  const parent = new Int32Array(n);
  // Whether another head ties parent[m]'s score: only then may a contraction move m's head
  // anywhere but the new cycle node.
  const tied = new Uint8Array(n);
  const mark = new Int32Array(n);
  const inCycle = new Uint8Array(n);
  const members = new Int32Array(n);
  const memberIn = new Float64Array(n);
  // Per level k (at most n − 2 contractions, each removing a node): its nodes at k·n, its size,
  // the contracted cycle's representative and own heads, and for each node outside the cycle
  // which cycle node its best arc enters (`enter`) or leaves (`leave`).
  const order = new Int32Array(n * n);
  const levelSize = new Int32Array(n);
  const levelRep = new Int32Array(n);
  const cycleParent = new Int32Array(n * n);
  const enter = new Int32Array(n * n);
  const leave = new Int32Array(n * n);

  /** Sets `parent[m]` to m's best head among the level's nodes at `base`; false if none. */
  const bestHead = (base: number, size: number, p: number, m: number): boolean => {
    const row = m * n;
    let best = -Infinity;
    let arg = -1;
    let tie = 0;
    for (let q = 0; q < size; ++q) {
      if (q === p) continue;
      const value = w[row + order[base + q]!]!;
      if (value > best) {
        best = value;
        arg = q;
        tie = 0;
      } else if (value === best) {
        tie = 1;
      }
    }
    if (arg < 0) return false;
    parent[m] = order[base + arg]!;
    tied[m] = tie;
    return true;
  };

  return (adjustment: Float64Array, heads: Int32Array): boolean => {
    heads[0] = -1;
    if (n <= 1) return true;
    w.fill(-Infinity);
    for (let m = 1; m < n; ++m) {
      let best = -Infinity;
      let arg = -1;
      let tie = 0;
      for (let k = inStart[m]!, end = inStart[m + 1]!; k < end; ++k) {
        const r = inArc[k]!;
        const h = arcHeads[r]!;
        const value = adjustment[r]!;
        w[m * n + h] = value;
        if (value > best) {
          best = value;
          arg = h;
          tie = 0;
        } else if (value === best) {
          tie = 1;
        }
      }
      if (arg < 0) return false;
      parent[m] = arg;
      tied[m] = tie;
    }
    for (let v = 0; v < n; ++v) order[v] = v;
    let size = n;
    let level = 0;
    for (;;) {
      const base = level * n;
      levelSize[level] = size;
      // The first cycle among the chosen heads, walking from each node in level order.
      for (let p = 0; p < size; ++p) mark[order[base + p]!] = -1;
      let cycleNode = -1;
      for (let p = 1; p < size && cycleNode < 0; ++p) {
        const start = order[base + p]!;
        let v = start;
        while (v > 0 && mark[v] === -1) {
          mark[v] = start;
          v = parent[v]!;
        }
        if (v > 0 && mark[v] === start) cycleNode = v;
      }
      if (cycleNode < 0) break;

      const r = cycleNode;
      levelRep[level] = r;
      let v = r;
      do {
        inCycle[v] = 1;
        cycleParent[base + v] = parent[v]!;
        v = parent[v]!;
      } while (v !== r);
      let count = 0;
      for (let p = 1; p < size; ++p) {
        const c = order[base + p]!;
        if (inCycle[c]) {
          members[count] = c;
          memberIn[count++] = w[c * n + parent[c]!]!;
        }
      }
      // Contract into r: the arcs between u outside the cycle and the cycle are read only while
      // handling u, so rewriting u→r and r→u as we go is safe.
      const next = base + n;
      let nextSize = 0;
      for (let p = 0; p < size; ++p) {
        const u = order[base + p]!;
        if (inCycle[u]) continue;
        order[next + nextSize++] = u;
        let best = -Infinity;
        let arg = -1;
        for (let i = 0; i < count; ++i) {
          const c = members[i]!;
          const value = w[c * n + u]!;
          if (value === -Infinity) continue;
          const adjusted = value - memberIn[i]!;
          if (adjusted > best) {
            best = adjusted;
            arg = c;
          }
        }
        w[r * n + u] = best;
        enter[base + u] = arg;
        if (u === 0) continue;
        best = -Infinity;
        arg = -1;
        const row = u * n;
        for (let i = 0; i < count; ++i) {
          const c = members[i]!;
          const value = w[row + c]!;
          if (value > best) {
            best = value;
            arg = c;
          }
        }
        w[row + r] = best;
        leave[base + u] = arg;
      }
      order[next + nextSize++] = r;
      // Heads at the new level, without rescanning where the answer is known. A node whose head
      // lies outside the cycle keeps it: that head was the first maximum, still comes before r,
      // and r's arc (the best arc out of the cycle) is no better. A node whose head lies in the
      // cycle with no tie moves to r, which now carries that unique maximum. Others scan again.
      let reachable = bestHead(next, nextSize, nextSize - 1, r);
      for (let p = 1; p < nextSize - 1 && reachable; ++p) {
        const m = order[next + p]!;
        const row = m * n;
        const h = parent[m]!;
        if (!inCycle[h]) {
          if (w[row + r] === w[row + h]) tied[m] = 1;
        } else if (!tied[m]) {
          parent[m] = r;
        } else {
          reachable = bestHead(next, nextSize, p, m);
        }
      }
      // inCycle is scratch shared across calls: clear it before any return.
      for (let i = 0; i < count; ++i) inCycle[members[i]!] = 0;
      if (!reachable) return false;
      size = nextSize;
      ++level;
    }

    // Expand, last level first: arcs out of a cycle go back to the node they leave, the cycle
    // keeps its own heads but for the node the chosen entering arc enters.
    for (let p = 1; p < size; ++p) {
      const m = order[level * n + p]!;
      heads[m] = parent[m]!;
    }
    for (let k = level - 1; k >= 0; --k) {
      const base = k * n;
      const r = levelRep[k]!;
      const above = base + n;
      const aboveSize = levelSize[k + 1]!;
      for (let p = 1; p < aboveSize; ++p) {
        const m = order[above + p]!;
        if (m !== r && heads[m] === r) heads[m] = leave[base + m]!;
      }
      const from = heads[r]!;
      let c = r;
      do {
        const h = cycleParent[base + c]!;
        heads[c] = h;
        c = h;
      } while (c !== r);
      heads[enter[base + from]!] = from;
    }
    return true;
  };
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
  const solve = arborescenceSolver(length, arcHeads, arcModifiers);
  const heads = new Int32Array(length);
  const visited = new Int32Array(length);
  return {
    name: "ARBORESCENCE",
    size,
    map(adjustment: Float64Array, out: Float64Array): number {
      out.fill(0);
      if (!solve(adjustment, heads)) return -Infinity;
      let total = 0;
      for (let m = 1; m < length; ++m) {
        const r = arcOf[heads[m]! * length + m]!;
        total += adjustment[r]!;
        out[r] = 1;
      }
      return total;
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
  const size = grandparents + length - 1;
  const modifiers = length - 1;
  const choices = grandparents === 0 ? 1 : grandparents;
  // sibling(j, m) at into[m * length + j]: the transition scores into m, contiguous in j.
  const into = new Float64Array((length + 1) * length);
  for (let j = 0; j < length; ++j) {
    for (let m = j + 1; m <= length; ++m) into[m * length + j] = siblings[offsets[j]! + m - j - 1]!;
  }
  const values = new Float64Array(length);
  // One back-pointer row per grandparent choice, so the best chain needs no copy.
  const back = new Int32Array(choices * length);

  return {
    name,
    size,
    map(adjustment: Float64Array, out: Float64Array): number {
      out.fill(0);
      let bestValue = -Infinity;
      let bestLast = -1;
      let bestChoice = 0;
      for (let c = 0; c < choices; ++c) {
        const g = grandparents === 0 ? -1 : c;
        const row = c * length;
        const grand = g * modifiers - 1;
        values[0] = 0;
        for (let m = 1; m < length; ++m) {
          const from = m * length;
          let best = values[0]! + into[from]!;
          let arg = 0;
          for (let j = 1; j < m; ++j) {
            const value = values[j]! + into[from + j]!;
            if (value > best) {
              best = value;
              arg = j;
            }
          }
          let own = adjustment[grandparents + m - 1]!;
          if (g >= 0) own += grandScores[grand + m]!;
          values[m] = best + own;
          back[row + m] = arg;
        }
        const end = length * length;
        let best = values[0]! + into[end]!;
        let last = 0;
        for (let j = 1; j < length; ++j) {
          const value = values[j]! + into[end + j]!;
          if (value > best) {
            best = value;
            last = j;
          }
        }
        const total = best + (g >= 0 ? adjustment[g]! : 0);
        if (bestLast < 0 || total > bestValue) {
          bestValue = total;
          bestLast = last;
          bestChoice = c;
        }
      }
      if (grandparents > 0) out[bestChoice] = 1;
      const row = bestChoice * length;
      for (let m = bestLast; m > 0; m = back[row + m]!) out[grandparents + m - 1] = 1;
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
        total += into[m * length + previous]!;
        if (g >= 0) total += grandScores[g * modifiers + m - 1]!;
        previous = m;
      }
      return total + into[length * length + previous]!;
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
