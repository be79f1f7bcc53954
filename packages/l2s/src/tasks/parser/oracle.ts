import {
  type ArcHybridState,
  NONE,
  REDUCE_LEFT,
  REDUCE_RIGHT,
  ROOT,
  SHIFT,
  type Transition,
} from "./arc-hybrid.js";

/**
 * A sentence's gold tree in the form the oracles read: `heads[w]` is word w's gold head (0 =
 * ROOT, index 0 unused), with each head's gold dependents listed in order.
 */
export class GoldTree {
  readonly n: number;
  readonly heads: Int32Array;
  /** True when the arcs, ROOT's included (ROOT at position 0), form a tree without crossing arcs. */
  readonly projective: boolean;
  /** Dependents of h are `dependents[start[h]] … dependents[start[h + 1] − 1]`, ascending. */
  private readonly start: Int32Array;
  private readonly dependents: Int32Array;

  /** From heads in output form: word w's head at index w − 1, 0 for ROOT. */
  constructor(heads: ArrayLike<number>) {
    const n = heads.length;
    this.n = n;
    this.heads = new Int32Array(n + 1);
    this.heads[0] = NONE;
    const counts = new Int32Array(n + 2);
    for (let w = 1; w <= n; w++) {
      const h = heads[w - 1]!;
      if (!Number.isInteger(h) || h < 0 || h > n || h === w) {
        throw new RangeError(`word ${w}: gold head ${h} is not 0…${n} or is the word itself`);
      }
      this.heads[w] = h;
      counts[h + 1]!++;
    }
    for (let h = 0; h <= n; h++) counts[h + 1]! += counts[h]!;
    this.start = counts;
    this.dependents = new Int32Array(n);
    const fill = counts.slice(0, n + 1);
    for (let w = 1; w <= n; w++) this.dependents[fill[this.heads[w]!]!++] = w;
    this.projective = isProjectiveTree(this.heads);
  }

  /** Number of h's gold dependents at positions ≥ from. */
  dependentsFrom(h: number, from: number): number {
    const end = this.start[h + 1]!;
    let i = this.start[h]!;
    while (i < end && this.dependents[i]! < from) i++;
    return end - i;
  }
}

/**
 * Whether `heads` (index w = head of w, index 0 unused) is a tree rooted at 0 without crossing
 * arcs, i.e. one the arc-hybrid system can build.
 */
export function isProjectiveTree(heads: Int32Array): boolean {
  const n = heads.length - 1;
  // Acyclic: every word reaches ROOT in at most n steps.
  for (let w = 1; w <= n; w++) {
    let h = w;
    for (let steps = 0; h !== ROOT; steps++) {
      if (steps > n) return false;
      h = heads[h]!;
    }
  }
  for (let a = 1; a <= n; a++) {
    const l1 = Math.min(a, heads[a]!);
    const r1 = Math.max(a, heads[a]!);
    for (let b = a + 1; b <= n; b++) {
      const l2 = Math.min(b, heads[b]!);
      const r2 = Math.max(b, heads[b]!);
      if ((l1 < l2 && l2 < r1 && r1 < r2) || (l2 < l1 && l1 < r2 && r2 < r1)) return false;
    }
  }
  return true;
}

/** Words whose head in `state` is its gold head. */
export function correctArcs(state: ArcHybridState, gold: GoldTree): number {
  let correct = 0;
  for (let w = 1; w <= state.n; w++) if (state.heads[w] === gold.heads[w]) correct++;
  return correct;
}

/**
 * The static oracle: the canonical gold transition sequence of a projective tree (attach s0 to
 * b0 when that is its gold arc; attach it to s1 once it is its gold arc and s0 has no gold
 * dependent left in the buffer; otherwise shift).
 *
 * It is only right on the gold path of a projective tree. Off it (after a mistake) or on a
 * non-projective tree it has no notion of "best"; it still returns a valid action (REDUCE_RIGHT
 * when the buffer is empty, SHIFT otherwise), so a roll-in or roll-out with it terminates — but
 * training with a static oracle must roll in with the reference.
 */
export function staticOracle(state: ArcHybridState, gold: GoldTree): Transition {
  const s0 = state.s(0);
  const b0 = state.b(0);
  if (state.depth > 1) {
    if (b0 !== NONE && gold.heads[s0] === b0) return REDUCE_LEFT;
    if (gold.heads[s0] === state.s(1) && gold.dependentsFrom(s0, state.front) === 0) {
      return REDUCE_RIGHT;
    }
  }
  return b0 === NONE ? REDUCE_RIGHT : SHIFT;
}

/** How {@link DynamicOracle} computes costs. */
export type OracleMethod = "auto" | "arc-decomposition" | "exact";

/**
 * The dynamic oracle: for each valid transition, how many more words the best reachable tree gets
 * wrong after it than before it (0 for the optimal ones, +∞ for invalid transitions). Since every
 * terminal configuration attaches each word exactly once, loss = n − correct arcs and the cost
 * is (min loss after) − (min loss now): following zero-cost transitions from any configuration
 * reaches the least loss still reachable, and the costs of the transitions taken add up to the
 * final loss minus the least loss reachable from the start.
 *
 * Two ways to get it, both exact where they are used:
 *
 * - Projective gold trees: the arc-hybrid system is arc-decomposable for them (Goldberg & Nivre
 *   2013): a set of gold arcs each reachable on its own is reachable together, so the cost is the
 *   number of gold arcs a transition makes unreachable, read off the configuration in O(|S| + n):
 *   - SHIFT loses b0's gold arc from a stack word other than s0 and b0's gold arcs to stack words;
 *   - REDUCE_LEFT loses s0's gold arc from s1 or from the buffer past b0, and s0's gold
 *     dependents in the buffer;
 *   - REDUCE_RIGHT loses s0's gold arc from the buffer and s0's gold dependents in the buffer.
 * - Non-projective gold trees: arc-decomposition fails (two crossing gold arcs can each be
 *   reachable but never both), and the count above is then not the cost: it charges for arcs
 *   that are reachable alone but already excluded from every best tree by a crossing arc (on all
 *   trees of up to 5 words it is never below the exact cost, and above it in many
 *   configurations). There the oracle computes
 *   the best reachable tree exactly by dynamic programming over arc-hybrid derivations (the
 *   tabulation of Kuhlmann, Gómez-Rodríguez & Satta 2011, used as an oracle as in Goldberg,
 *   Sartorio & Satta 2014), see {@link ExactFuture}: O(n³) once per sentence and O((n − b0)²)
 *   per SHIFT cost, with the per-stack-level tables cached while the stack's bottom stays put.
 *
 * `method` forces one of the two (`arc-decomposition` on a non-projective tree is then only the
 * usual approximation); the default `auto` is exact everywhere.
 */
export class DynamicOracle {
  private readonly exact = new ExactFuture();
  private exactGold: GoldTree | undefined;

  constructor(readonly method: OracleMethod = "auto") {}

  /** Writes the cost of each transition (indexed by action) into `out`: +∞ where invalid. */
  costs(state: ArcHybridState, gold: GoldTree, out: number[]): number[] {
    checkSentence(state, gold);
    out.length = 3;
    const useExact = this.method === "exact" || (this.method === "auto" && !gold.projective);
    if (useExact) this.exactCosts(state, gold, out);
    else arcDecompositionCosts(state, gold, out);
    return out;
  }

  /** The least number of words with a wrong head among the terminal trees reachable from `state`. */
  minLoss(state: ArcHybridState, gold: GoldTree): number {
    checkSentence(state, gold);
    return gold.n - correctArcs(state, gold) - this.exactFor(gold).best(state);
  }

  private exactFor(gold: GoldTree): ExactFuture {
    if (this.exactGold !== gold) {
      this.exact.prepare(gold);
      this.exactGold = gold;
    }
    return this.exact;
  }

  private exactCosts(state: ArcHybridState, gold: GoldTree, out: number[]): void {
    const exact = this.exactFor(gold);
    const now = exact.best(state);
    const g = gold.heads;
    const s0 = state.s(0);
    const b0 = state.front;
    out[SHIFT] = state.canShift() ? now - exact.bestAfterShift(state) : Infinity;
    out[REDUCE_LEFT] = state.canReduceLeft()
      ? now - (g[s0] === b0 ? 1 : 0) - exact.bestAfterPop(state)
      : Infinity;
    out[REDUCE_RIGHT] = state.canReduceRight()
      ? now - (g[s0] === state.s(1) ? 1 : 0) - exact.bestAfterPop(state)
      : Infinity;
  }
}

function checkSentence(state: ArcHybridState, gold: GoldTree): void {
  if (state.n !== gold.n) {
    throw new RangeError(`the configuration has ${state.n} words but the gold tree ${gold.n}`);
  }
}

/** Goldberg & Nivre's arc-hybrid costs: gold arcs lost, exact for projective gold trees. */
function arcDecompositionCosts(state: ArcHybridState, gold: GoldTree, out: number[]): void {
  const g = gold.heads;
  const s0 = state.s(0);
  const s1 = state.s(1);
  const b0 = state.front;
  if (state.canShift()) {
    let lost = 0;
    // The stack's words below s0 can no longer be b0's head, and no stack word its dependent.
    for (let i = 0; i < state.depth; i++) {
      const t = state.stack[i]!;
      if (g[t] === b0) lost++;
      if (t === g[b0] && i < state.depth - 1) lost++;
    }
    out[SHIFT] = lost;
  } else {
    out[SHIFT] = Infinity;
  }
  if (state.canReduceRight()) {
    const lostDependents = gold.dependentsFrom(s0, b0);
    const h = g[s0]!;
    out[REDUCE_RIGHT] = lostDependents + (h >= b0 ? 1 : 0);
    out[REDUCE_LEFT] = state.canReduceLeft()
      ? lostDependents + (h === s1 || h > b0 ? 1 : 0)
      : Infinity;
  } else {
    out[REDUCE_RIGHT] = Infinity;
    out[REDUCE_LEFT] = Infinity;
  }
}

/**
 * The most gold arcs the rest of a derivation can still add, exactly, for any head function.
 *
 * C(k, j), for a word k and a buffer position j > k (j = n + 1: the buffer is empty), is the
 * most gold arcs over derivations that go from "k just shifted" (k on top, front k + 1) to "k on
 * top, front j" without popping k: every word k+1 … j−1 is shifted and popped in between. Its
 * last directly-pushed word m is pushed at front m, runs C(m, j), and is popped onto k
 * (REDUCE_RIGHT) or onto j (REDUCE_LEFT, when j ≤ n):
 *
 *   C(k, k+1) = 0,  C(k, j) = max over k < m < j of C(k, m) + C(m, j) + max(g(k→m), g(j→m)).
 *
 * U_l(j), for the stack t_0 … t_l (t_0 = ROOT) and front j > t_l, is the most gold arcs from there
 * to the end: either pop t_l now (onto t_{l−1} or onto j), or push j, run C(j, j′), pop j onto t_l
 * or j′, and continue from front j′:
 *
 *   U_l(j) = max( max(g(t_{l−1}→t_l), g(j→t_l)) + U_{l−1}(j),
 *                 max over j < j′ ≤ n+1 of C(j, j′) + max(g(t_l→j), g(j′→j)) + U_l(j′) ),
 *   U_0(n+1) = 0 (ROOT alone, buffer empty: the end).
 *
 * U_l depends only on t_0 … t_l, so its table (fronts t_l + 1 … n + 1) stays valid for as long as
 * t_l is on the stack: the tables are cached per level and recomputed only above the first level
 * whose token changed.
 */
class ExactFuture {
  private n = 0;
  private width = 0;
  private gold: Int32Array = new Int32Array(0);
  private c = new Int32Array(0);
  private u = new Int32Array(0);
  /** The token each cached level was computed for; levels 0 … valid − 1 are current. */
  private levelToken = new Int32Array(0);
  private valid = 0;

  prepare(tree: GoldTree): void {
    const n = tree.n;
    const w = n + 2;
    this.n = n;
    this.width = w;
    this.gold = tree.heads;
    if (this.c.length < w * w) {
      this.c = new Int32Array(w * w);
      this.u = new Int32Array(w * w);
      this.levelToken = new Int32Array(w);
    }
    this.valid = 0;
    const g = tree.heads;
    const c = this.c;
    for (let span = 1; span <= n; span++) {
      for (let k = 1; k + span <= n + 1; k++) {
        const j = k + span;
        let best = 0;
        for (let m = k + 1; m < j; m++) {
          const arc = g[m] === k || (j <= n && g[m] === j) ? 1 : 0;
          const v = c[k * w + m]! + c[m * w + j]! + arc;
          if (v > best) best = v;
        }
        c[k * w + j] = best;
      }
    }
  }

  /** Most gold arcs still reachable from `state`. */
  best(state: ArcHybridState): number {
    this.sync(state.stack, state.depth);
    return this.u[(state.depth - 1) * this.width + state.front]!;
  }

  /** Most gold arcs reachable after popping s0 (the arc the pop itself adds is not counted). */
  bestAfterPop(state: ArcHybridState): number {
    this.sync(state.stack, state.depth - 1);
    return this.u[(state.depth - 2) * this.width + state.front]!;
  }

  /** Most gold arcs reachable after shifting b0. */
  bestAfterShift(state: ArcHybridState): number {
    const depth = state.depth;
    this.sync(state.stack, depth);
    const b0 = state.front;
    if (this.valid > depth && this.levelToken[depth] !== b0) this.valid = depth;
    if (this.valid === depth) this.computeLevel(depth, b0);
    return this.u[depth * this.width + b0 + 1]!;
  }

  /** Makes levels 0 … depth − 1 current for the stack `stack[0 … depth − 1]`. */
  private sync(stack: Int32Array, depth: number): void {
    let l = 0;
    while (l < this.valid && l < depth && this.levelToken[l] === stack[l]) l++;
    if (l < depth) this.valid = l;
    for (; l < depth; l++) this.computeLevel(l, stack[l]!);
  }

  private computeLevel(l: number, t: number): void {
    const { n, width: w, gold: g, c, u } = this;
    const row = l * w;
    const below = (l - 1) * w;
    const parent = l > 0 ? this.levelToken[l - 1]! : NONE;
    for (let j = n + 1; j > t; j--) {
      let best = -1;
      if (l === 0) {
        if (j === n + 1) best = 0;
      } else {
        const arc = g[t] === parent || (j <= n && g[t] === j) ? 1 : 0;
        best = arc + u[below + j]!;
      }
      if (j <= n) {
        for (let jj = j + 1; jj <= n + 1; jj++) {
          const arc = g[j] === t || (jj <= n && g[j] === jj) ? 1 : 0;
          const v = c[j * w + jj]! + arc + u[row + jj]!;
          if (v > best) best = v;
        }
      }
      u[row + j] = best;
    }
    this.levelToken[l] = t;
    this.valid = l + 1;
  }
}
