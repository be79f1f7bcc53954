import { type MaxflowGraph, Segment } from "../maxflow/graph.js";

/** What a cut slave's graph holds that its projection needs (see minCutSlave). */
export interface CutProjectionGraph {
  readonly graph: MaxflowGraph;
  /** The label variables' linear energy coefficients before the adjustment (nodes 0 … size−1). */
  readonly unary: Float64Array;
  /** The energy's constant, the auxiliaries' negative unaries folded in. */
  readonly fixedConstant: number;
  /** Number of label variables (n·L); nodes from here on are auxiliaries. */
  readonly size: number;
  readonly reuse: boolean;
}

/**
 * A split is trusted only when the cut beats the two lines' meeting point by more than this
 * (relative to the value): below it the group takes one value. A false split costs cuts, never
 * accuracy; a false merge moves a variable by up to about this much times scale (over the smaller
 * of the two sub-groups it merged): repeated projections on one slave stay within 6e-10 of a
 * fresh slave's at scale 100.
 */
const MERGE_TOLERANCE = 1e-12;

/**
 * The exact quadratic step of a min-cut slave: the q ∈ [0,1]^N maximising
 * scale·ĝ(q) + v·q − ½‖q‖², ĝ the concave closure of the slave's g over {0,1}^N (Z is not one-hot,
 * so its polytope is the cube). With f = −g submodular (min over the auxiliaries of a submodular
 * energy), ĝ = −f_L (Lovász extension) and q is the clip to [0,1] of the minimiser ẑ of
 * scale·f_L(z) + ½‖z − v‖² over ℝ^N, whose level sets are nested minimum cuts:
 * {i : ẑ_i > α} is the smallest-Z maximiser of g(Z) + Σ_i Z_i (v_i − α)/scale (Bach, "Learning
 * with submodular functions", §8–9; Hochbaum 2001) — one max-flow on the slave's own graph with
 * the adjustment (v − α)/scale.
 *
 * The value V(α) of that maximum is convex and piecewise linear in α, its breakpoints the values
 * of ẑ. Cuts at α = 0 and 1 fix the variables the clip decides; between two cuts (α_lo, S_lo) and
 * (α_hi, S_hi), S_hi ⊂ S_lo, the lines of S_lo and S_hi meet at α*; a cut there either touches
 * that point (every variable of S_lo \ S_hi takes α*) or finds a set strictly between, and both
 * halves recurse (Gallo–Grigoriadis–Tarjan's parametric search). Variables outside the group being
 * cut are forced to their side by terminal capacities larger than all their edges together, so
 * the sets stay nested whatever the rounding. A projection costs 2 cuts when q is 0/1, and about
 * 2 per distinct fractional value otherwise.
 */
export class CutProjection {
  readonly #g: CutProjectionGraph;
  /** Per label node, a terminal capacity that outweighs all its edges (forces its side). */
  readonly #big: Float64Array;
  /** The label variables, ordered so that every group is a contiguous range (higher ẑ first). */
  readonly #order: Int32Array;
  /** Per label node: its energy coefficient at α = 0, unary − v/scale (α adds α/scale). */
  readonly #w: Float64Array;
  /** The terminal capacities this projection last gave each label node. */
  readonly #capSource: Float64Array;
  readonly #capSink: Float64Array;
  /** Pending groups: range [from, to), Σ #w over order[0 … from), and the two cuts bounding it. */
  readonly #from: Int32Array;
  readonly #to: Int32Array;
  readonly #above: Float64Array;
  readonly #alphaLo: Float64Array;
  readonly #valueLo: Float64Array;
  readonly #alphaHi: Float64Array;
  readonly #valueHi: Float64Array;
  /** The last cut's free range: only positions between it and the next one change side. */
  #lastFrom = 0;
  #lastTo = 0;
  /** Σ #w over the range's variables the last cut switched on (see #partition). */
  #switchedOn = 0;
  /** Max-flow calls of the last projection. */
  calls = 0;

  constructor(g: CutProjectionGraph, big: Float64Array) {
    this.#g = g;
    this.#big = big;
    const N = g.size;
    this.#order = new Int32Array(N);
    this.#w = new Float64Array(N);
    this.#capSource = new Float64Array(N);
    this.#capSink = new Float64Array(N);
    this.#from = new Int32Array(N + 1);
    this.#to = new Int32Array(N + 1);
    this.#above = new Float64Array(N + 1);
    this.#alphaLo = new Float64Array(N + 1);
    this.#valueLo = new Float64Array(N + 1);
    this.#alphaHi = new Float64Array(N + 1);
    this.#valueHi = new Float64Array(N + 1);
  }

  /** Writes the projection to `out` (see the class comment); v and out have length N. */
  project(v: Float64Array, scale: number, out: Float64Array): void {
    const N = this.#g.size;
    const order = this.#order;
    const w = this.#w;
    const unary = this.#g.unary;
    for (let i = 0; i < N; i++) {
      order[i] = i;
      w[i] = unary[i]! - v[i]! / scale;
    }
    this.calls = 0;
    // `maximize` may have rewritten every label node since the last projection.
    this.#lastFrom = 0;
    this.#lastTo = N;
    this.#capSource.fill(-1);
    const value0 = this.#cut(scale, 0, 0, N, 0);
    const k0 = this.#partition(0, N);
    const value1 = this.#cut(scale, 1, 0, k0, 0);
    const k1 = this.#partition(0, k0);
    const above1 = this.#switchedOn;
    for (let p = 0; p < k1; p++) out[order[p]!] = 1;
    for (let p = k0; p < N; p++) out[order[p]!] = 0;
    const from = this.#from;
    const to = this.#to;
    const above = this.#above;
    const alphaLo = this.#alphaLo;
    const valueLo = this.#valueLo;
    const alphaHi = this.#alphaHi;
    const valueHi = this.#valueHi;
    let top = 0;
    if (k1 < k0) {
      from[0] = k1;
      to[0] = k0;
      above[0] = above1;
      alphaLo[0] = 0;
      valueLo[0] = value0;
      alphaHi[0] = 1;
      valueHi[0] = value1;
      top = 1;
    }
    while (top > 0) {
      top--;
      const a = from[top]!;
      const b = to[top]!;
      const sumAbove = above[top]!;
      const lo = alphaLo[top]!;
      const vLo = valueLo[top]!;
      const hi = alphaHi[top]!;
      const vHi = valueHi[top]!;
      // Where the lines of S_lo (b variables on) and S_hi (a on) meet; slopes −b/scale, −a/scale.
      let alpha = lo + (scale * (vLo - vHi) - a * (hi - lo)) / (b - a);
      if (!(alpha >= lo)) alpha = lo;
      else if (alpha > hi) alpha = hi;
      const value = this.#cut(scale, alpha, a, b, sumAbove);
      const k = this.#partition(a, b);
      const line = vLo - (b * (alpha - lo)) / scale;
      if (k === a || k === b || value - line <= MERGE_TOLERANCE * (1 + Math.abs(value))) {
        for (let p = a; p < b; p++) out[order[p]!] = alpha;
        continue;
      }
      // Below: S_lo \ S* on (lo, α*]; above (popped first): S* \ S_hi on (α*, hi].
      from[top] = k;
      to[top] = b;
      above[top] = sumAbove + this.#switchedOn;
      alphaHi[top] = alpha;
      valueHi[top] = value;
      top++;
      from[top] = a;
      to[top] = k;
      above[top] = sumAbove;
      alphaLo[top] = alpha;
      valueLo[top] = value;
      alphaHi[top] = hi;
      valueHi[top] = vHi;
      top++;
    }
  }

  /**
   * max over Z of g(Z) + Σ_i Z_i (v_i − α)/scale with the variables order[0 … a) forced to 1 and
   * order[b …) to 0 (`sumAbove`: Σ #w over the first); returns the maximum.
   */
  #cut(scale: number, alpha: number, a: number, b: number, sumAbove: number): number {
    const { graph, reuse } = this.#g;
    const order = this.#order;
    const w = this.#w;
    const big = this.#big;
    const shift = alpha / scale;
    // Forced variables pay their coefficient as a constant (on), or nothing (off).
    let constant = this.#g.fixedConstant + sumAbove + a * shift;
    const lo = Math.min(a, this.#lastFrom);
    const hi = Math.max(b, this.#lastTo);
    for (let p = lo; p < hi; p++) {
      const i = order[p]!;
      if (p < a) this.#set(graph, i, 0, big[i]!);
      else if (p >= b) this.#set(graph, i, big[i]!, 0);
      else {
        const c = w[i]! + shift;
        if (c >= 0) this.#set(graph, i, c, 0);
        else {
          this.#set(graph, i, 0, -c);
          constant += c;
        }
      }
    }
    this.#lastFrom = a;
    this.#lastTo = b;
    const flow = graph.maxflow(reuse);
    this.calls++;
    return -(flow + constant);
  }

  /** Marking an unchanged node would make the reused search re-examine it for nothing. */
  #set(graph: MaxflowGraph, i: number, capSource: number, capSink: number): void {
    if (this.#capSource[i] !== capSource || this.#capSink[i] !== capSink) {
      this.#capSource[i] = capSource;
      this.#capSink[i] = capSink;
      graph.setTerminalWeights(i, capSource, capSink);
    }
  }

  /**
   * Moves the variables of order[a … b) that the last cut switched on (sink side; free nodes go to
   * the source side, the smallest Z) to the front; returns a + their count.
   */
  #partition(a: number, b: number): number {
    const { graph } = this.#g;
    const order = this.#order;
    const w = this.#w;
    let k = a;
    let sum = 0;
    for (let p = a; p < b; p++) {
      const i = order[p]!;
      if (graph.whatSegment(i, Segment.Source) === Segment.Sink) {
        order[p] = order[k]!;
        order[k++] = i;
        sum += w[i]!;
      }
    }
    this.#switchedOn = sum;
    return k;
  }
}
