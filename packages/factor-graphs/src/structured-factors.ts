import type { BinaryFactor } from "@lagrange/core/dual-decomposition";

/**
 * The structured factors AD3's `.fg` files use beyond the logic ones: a chain (SEQUENCE), a chain
 * whose number of positions in state 0 is capped (SEQUENCE_BUDGET) and a tree (GENERAL_TREE) over
 * multi-valued positions. Each position's states are consecutive local binary variables, exactly
 * one of them 1; the factor's own score sums transition scores (the states' own scores are the
 * variables' unaries). They give only the MAP oracle: the master's active-set method does the
 * quadratic step, as AD3's GenericFactor does for them.
 */

/** Offsets of each position's first state among the local variables; the last entry is the size. */
function stateOffsets(numStates: Int32Array): Int32Array {
  const offsets = new Int32Array(numStates.length + 1);
  for (let i = 0; i < numStates.length; ++i) offsets[i + 1] = offsets[i]! + numStates[i]!;
  return offsets;
}

/**
 * The state of each position in a 0/1 vector, or false when some position has not exactly one
 * state on.
 */
function decodeStates(
  z: ArrayLike<number>,
  numStates: Int32Array,
  offsets: Int32Array,
  states: Int32Array,
): boolean {
  for (let i = 0; i < numStates.length; ++i) {
    let state = -1;
    for (let k = 0; k < numStates[i]!; ++k) {
      const value = z[offsets[i]! + k]!;
      if (value === 1) {
        if (state >= 0) return false;
        state = k;
      } else if (value !== 0) {
        return false;
      }
    }
    if (state < 0) return false;
    states[i] = state;
  }
  return true;
}

function writeStates(states: Int32Array, offsets: Int32Array, out: Float64Array): void {
  out.fill(0);
  for (let i = 0; i < states.length; ++i) out[offsets[i]! + states[i]!] = 1;
}

/**
 * Offsets of each position's transition block in a SEQUENCE score table: block i (0..length)
 * holds prev × cur scores, prev outer, where position −1 (the start) and position `length` (the
 * end) have one state.
 */
export function sequenceScoreOffsets(numStates: Int32Array): Int32Array {
  const length = numStates.length;
  const offsets = new Int32Array(length + 2);
  for (let i = 0; i <= length; ++i) {
    const previous = i > 0 ? numStates[i - 1]! : 1;
    const current = i < length ? numStates[i]! : 1;
    offsets[i + 1] = offsets[i]! + previous * current;
  }
  return offsets;
}

/**
 * A chain over `numStates.length` positions (AD3's SEQUENCE). `scores` holds the transition
 * scores in the file's order: start→position 0, then position i−1→i for i = 1..length−1 (previous
 * state outer), then position length−1→end; {@link sequenceScoreOffsets} gives the blocks.
 *
 * With `budget` (AD3's SEQUENCE_BUDGET), at most `budget` positions may take state 0.
 */
export function sequenceFactor(
  numStates: Int32Array,
  scores: Float64Array,
  budget?: number,
): BinaryFactor {
  const length = numStates.length;
  if (length === 0) throw new RangeError("a sequence factor needs at least one position");
  for (const n of numStates) {
    if (n < 1) throw new RangeError("every position of a sequence factor needs a state");
  }
  const offsets = stateOffsets(numStates);
  const edges = sequenceScoreOffsets(numStates);
  if (scores.length !== edges[length + 1]) {
    throw new RangeError(
      `a sequence factor needs ${edges[length + 1]} scores, got ${scores.length}`,
    );
  }
  const size = offsets[length]!;
  // Counts of positions in state 0 run over 0..cap; without a budget one bin does.
  const cap = budget === undefined ? 0 : Math.min(Math.max(budget, -1), length);
  const bins = budget === undefined ? 1 : cap + 1;
  const values = new Float64Array(size * Math.max(bins, 1));
  const back = new Int32Array(size * Math.max(bins, 1));
  const states = new Int32Array(length);
  const counted = budget !== undefined;

  const edge = (i: number, previous: number, current: number): number => {
    const width = i < length ? numStates[i]! : 1;
    return scores[edges[i]! + previous * width + current]!;
  };

  return {
    name: counted ? "SEQUENCE_BUDGET" : "SEQUENCE",
    size,
    map(adjustment: Float64Array, out: Float64Array): number {
      if (bins <= 0) {
        out.fill(0);
        return -Infinity;
      }
      values.fill(-Infinity);
      // values[(offsets[i] + k) * bins + c]: best score of positions 0..i ending in state k with
      // c positions in state 0 (c = 0 always without a budget).
      for (let k = 0; k < numStates[0]!; ++k) {
        const c = counted && k === 0 ? 1 : 0;
        if (c >= bins) continue;
        values[(offsets[0]! + k) * bins + c] = edge(0, 0, k) + adjustment[offsets[0]! + k]!;
      }
      for (let i = 1; i < length; ++i) {
        for (let k = 0; k < numStates[i]!; ++k) {
          const here = offsets[i]! + k;
          const shift = counted && k === 0 ? 1 : 0;
          for (let c = shift; c < bins; ++c) {
            let best = -Infinity;
            let arg = -1;
            for (let l = 0; l < numStates[i - 1]!; ++l) {
              const previous = values[(offsets[i - 1]! + l) * bins + c - shift]!;
              if (previous === -Infinity) continue;
              const value = previous + edge(i, l, k);
              if (arg < 0 || value > best) {
                best = value;
                arg = l;
              }
            }
            if (arg >= 0) {
              values[here * bins + c] = best + adjustment[here]!;
              back[here * bins + c] = arg;
            }
          }
        }
      }
      let best = -Infinity;
      let argState = -1;
      let argBin = -1;
      for (let c = 0; c < bins; ++c) {
        for (let l = 0; l < numStates[length - 1]!; ++l) {
          const previous = values[(offsets[length - 1]! + l) * bins + c]!;
          if (previous === -Infinity) continue;
          const value = previous + edge(length, l, 0);
          if (argState < 0 || value > best) {
            best = value;
            argState = l;
            argBin = c;
          }
        }
      }
      if (argState < 0) {
        out.fill(0);
        return -Infinity;
      }
      let c = argBin;
      states[length - 1] = argState;
      for (let i = length - 1; i > 0; --i) {
        const k = states[i]!;
        states[i - 1] = back[(offsets[i]! + k) * bins + c]!;
        if (counted && k === 0) --c;
      }
      writeStates(states, offsets, out);
      return best;
    },
    score(z: ArrayLike<number>): number {
      if (!decodeStates(z, numStates, offsets, states)) return -Infinity;
      let total = 0;
      let zeros = 0;
      let previous = 0;
      for (let i = 0; i < length; ++i) {
        const k = states[i]!;
        if (k === 0) ++zeros;
        total += edge(i, previous, k);
        previous = k;
      }
      if (counted && zeros > budget!) return -Infinity;
      return total + edge(length, previous, 0);
    },
  };
}

/**
 * Offsets of each node's block in a GENERAL_TREE score table: node i ≥ 1 has
 * numStates[parent] × numStates[i] scores, parent state outer; the root has none.
 */
export function treeScoreOffsets(parents: Int32Array, numStates: Int32Array): Int32Array {
  const offsets = new Int32Array(numStates.length + 1);
  for (let i = 0; i < numStates.length; ++i) {
    const own = i === 0 ? 0 : numStates[parents[i]!]! * numStates[i]!;
    offsets[i + 1] = offsets[i]! + own;
  }
  return offsets;
}

/**
 * Nodes in an order where every parent comes before its children, or undefined when `parents`
 * is not a tree rooted at node 0 (parent −1) whose other nodes have parents in range.
 */
export function treeOrder(parents: Int32Array): Int32Array | undefined {
  const n = parents.length;
  if (n === 0 || parents[0] !== -1) return undefined;
  const childCount = new Int32Array(n + 1);
  for (let i = 1; i < n; ++i) {
    const p = parents[i]!;
    if (p < 0 || p >= n || p === i) return undefined;
    childCount[p + 1]! += 1;
  }
  for (let i = 0; i < n; ++i) childCount[i + 1]! += childCount[i]!;
  const children = new Int32Array(Math.max(n - 1, 0));
  const fill = childCount.slice(0, n);
  for (let i = 1; i < n; ++i) children[fill[parents[i]!]!++] = i;
  const order = new Int32Array(n);
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const i = order[head++]!;
    for (let t = childCount[i]!; t < childCount[i + 1]!; ++t) order[tail++] = children[t]!;
  }
  // A cycle leaves some nodes unreached from the root.
  return tail === n ? order : undefined;
}

/**
 * A tree over multi-valued nodes (AD3's GENERAL_TREE): node 0 is the root (parent −1); `scores`
 * holds, for nodes 1..n−1 in order, the parent-state × node-state transition scores (parent state
 * outer; {@link treeScoreOffsets}).
 */
export function generalTreeFactor(
  parents: Int32Array,
  numStates: Int32Array,
  scores: Float64Array,
): BinaryFactor {
  const n = numStates.length;
  if (parents.length !== n) throw new RangeError("a tree factor needs one parent per node");
  const order = treeOrder(parents);
  if (order === undefined) throw new RangeError("the parents do not form a tree rooted at node 0");
  for (const k of numStates) {
    if (k < 1) throw new RangeError("every node of a tree factor needs a state");
  }
  const offsets = stateOffsets(numStates);
  const edges = treeScoreOffsets(parents, numStates);
  if (scores.length !== edges[n]) {
    throw new RangeError(`a tree factor needs ${edges[n]} scores, got ${scores.length}`);
  }
  const size = offsets[n]!;
  const values = new Float64Array(size);
  // choice[childOffsets[i] + k]: node i's best state when its parent is in state k.
  const childOffsets = new Int32Array(n + 1);
  for (let i = 1; i < n; ++i) childOffsets[i + 1] = childOffsets[i]! + numStates[parents[i]!]!;
  const choice = new Int32Array(Math.max(childOffsets[n]!, 1));
  const states = new Int32Array(n);

  const edge = (i: number, parentState: number, state: number): number =>
    scores[edges[i]! + parentState * numStates[i]! + state]!;

  return {
    name: "GENERAL_TREE",
    size,
    map(adjustment: Float64Array, out: Float64Array): number {
      for (let s = 0; s < size; ++s) values[s] = adjustment[s]!;
      // Children before parents: each node's value already holds its subtree's best.
      for (let r = n - 1; r >= 1; --r) {
        const i = order[r]!;
        const p = parents[i]!;
        for (let k = 0; k < numStates[p]!; ++k) {
          let best = -Infinity;
          let arg = -1;
          for (let l = 0; l < numStates[i]!; ++l) {
            const value = values[offsets[i]! + l]! + edge(i, k, l);
            if (arg < 0 || value > best) {
              best = value;
              arg = l;
            }
          }
          values[offsets[p]! + k]! += best;
          choice[childOffsets[i]! + k] = arg;
        }
      }
      let best = -Infinity;
      let arg = -1;
      for (let k = 0; k < numStates[0]!; ++k) {
        const value = values[k]!;
        if (arg < 0 || value > best) {
          best = value;
          arg = k;
        }
      }
      states[0] = arg;
      for (let r = 1; r < n; ++r) {
        const i = order[r]!;
        states[i] = choice[childOffsets[i]! + states[parents[i]!]!]!;
      }
      writeStates(states, offsets, out);
      return best;
    },
    score(z: ArrayLike<number>): number {
      if (!decodeStates(z, numStates, offsets, states)) return -Infinity;
      let total = 0;
      for (let i = 1; i < n; ++i) total += edge(i, states[parents[i]!]!, states[i]!);
      return total;
    },
  };
}

/**
 * A tree with a count (AD3's GENERAL_TREE_COUNTS): the local variables are a GENERAL_TREE's
 * states followed by `n + 1` count variables, of which exactly the one at index "number of nodes
 * in state 0" is on, so their unaries score that count. Scores as {@link generalTreeFactor}.
 */
export function countedTreeFactor(
  parents: Int32Array,
  numStates: Int32Array,
  scores: Float64Array,
): BinaryFactor {
  const tree = generalTreeFactor(parents, numStates, scores);
  const n = numStates.length;
  const order = treeOrder(parents)!;
  const offsets = stateOffsets(numStates);
  const edges = treeScoreOffsets(parents, numStates);
  const countOffset = offsets[n]!;
  const size = countOffset + n + 1;
  const subtree = new Int32Array(n).fill(1);
  for (let r = n - 1; r >= 1; --r) subtree[parents[order[r]!]!]! += subtree[order[r]!]!;
  const children: number[][] = Array.from({ length: n }, () => []);
  for (let r = 1; r < n; ++r) children[parents[order[r]!]!]!.push(order[r]!);
  // table[i][k * (subtree[i] + 1) + c]: best score of i's subtree with i in state k and c nodes
  // of the subtree in state 0. best[j], arg[j]: over child j's state, per parent state and count.
  // split[j][k * (subtree[p] + 1) + c]: the count child j brought when p's running total was c.
  const table = Array.from(
    { length: n },
    (_, i) => new Float64Array(numStates[i]! * (subtree[i]! + 1)),
  );
  const best = Array.from({ length: n }, (_, j) =>
    j === 0 ? new Float64Array(0) : new Float64Array(numStates[parents[j]!]! * (subtree[j]! + 1)),
  );
  const arg = best.map((b) => new Int32Array(b.length));
  const split = Array.from({ length: n }, (_, j) =>
    j === 0
      ? new Int32Array(0)
      : new Int32Array(numStates[parents[j]!]! * (subtree[parents[j]!]! + 1)),
  );
  let widest = 0;
  for (const t of table) widest = Math.max(widest, t.length);
  const scratch = new Float64Array(widest);
  const states = new Int32Array(n);
  const edge = (i: number, parentState: number, state: number): number =>
    scores[edges[i]! + parentState * numStates[i]! + state]!;

  const assign = (i: number, k: number, c: number): void => {
    states[i] = k;
    const width = subtree[i]! + 1;
    const kids = children[i]!;
    for (let t = kids.length - 1; t >= 0; --t) {
      const j = kids[t]!;
      const from = split[j]![k * width + c]!;
      assign(j, arg[j]![k * (subtree[j]! + 1) + from]!, from);
      c -= from;
    }
  };

  return {
    name: "GENERAL_TREE_COUNTS",
    size,
    map(adjustment: Float64Array, out: Float64Array): number {
      for (let r = n - 1; r >= 0; --r) {
        const i = order[r]!;
        const width = subtree[i]! + 1;
        const t = table[i]!;
        t.fill(-Infinity);
        for (let k = 0; k < numStates[i]!; ++k) {
          t[k * width + (k === 0 ? 1 : 0)] = adjustment[offsets[i]! + k]!;
        }
        let reach = 1;
        for (const j of children[i]!) {
          const childWidth = subtree[j]! + 1;
          const b = best[j]!;
          const a = arg[j]!;
          const tj = table[j]!;
          for (let k = 0; k < numStates[i]!; ++k) {
            for (let c = 0; c < childWidth; ++c) {
              let value = -Infinity;
              let choice = -1;
              for (let l = 0; l < numStates[j]!; ++l) {
                const v = tj[l * childWidth + c]! + edge(j, k, l);
                if (v > value) {
                  value = v;
                  choice = l;
                }
              }
              b[k * childWidth + c] = value;
              a[k * childWidth + c] = choice;
            }
          }
          const s = split[j]!;
          scratch.fill(-Infinity, 0, t.length);
          for (let k = 0; k < numStates[i]!; ++k) {
            for (let c = 0; c <= reach; ++c) {
              const here = t[k * width + c]!;
              if (here === -Infinity) continue;
              for (let d = 0; d < childWidth; ++d) {
                const v = here + b[k * childWidth + d]!;
                if (v > scratch[k * width + c + d]!) {
                  scratch[k * width + c + d] = v;
                  s[k * width + c + d] = d;
                }
              }
            }
          }
          t.set(scratch.subarray(0, t.length));
          reach += subtree[j]!;
        }
      }
      let value = -Infinity;
      let bestK = -1;
      let bestC = -1;
      const rootWidth = n + 1;
      for (let k = 0; k < numStates[0]!; ++k) {
        for (let c = 0; c <= n; ++c) {
          const v = table[0]![k * rootWidth + c]! + adjustment[countOffset + c]!;
          if (v > value) {
            value = v;
            bestK = k;
            bestC = c;
          }
        }
      }
      out.fill(0);
      if (bestK < 0) return -Infinity;
      assign(0, bestK, bestC);
      for (let i = 0; i < n; ++i) out[offsets[i]! + states[i]!] = 1;
      out[countOffset + bestC] = 1;
      return value;
    },
    score(z: ArrayLike<number>): number {
      const own = tree.score(Array.prototype.slice.call(z, 0, countOffset) as number[]);
      if (own === -Infinity) return own;
      let zeros = 0;
      for (let i = 0; i < n; ++i) if (z[offsets[i]!] === 1) ++zeros;
      for (let c = 0; c <= n; ++c) {
        if (z[countOffset + c] !== (c === zeros ? 1 : 0)) return -Infinity;
      }
      return own;
    },
  };
}
