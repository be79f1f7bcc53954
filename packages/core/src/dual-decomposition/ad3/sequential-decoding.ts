import type { Ad3Layout, Ad3Run } from "./admm.js";
import { carveAll } from "./typed-arena.js";

/**
 * A primal candidate from the dual, stronger than rounding: the variables are fixed one at a time
 * (a one-hot group as one), each to the value whose factors score highest with it, every factor
 * maximised at the MAP pass's adjustment (θ/degree + λ) over the configurations that keep the
 * variables fixed so far. This is the decoding of the max-product and TRW-S literature.
 *
 * Rounding the posteriors, or the factors' own maximisers, breaks where the factors' MAPs tie:
 * on Family2Dominant (a pedigree) the dual is the optimum at λ = 0 already, but the tied
 * maximisers disagree, and rounding the posteriors first met every hard factor after 168
 * iterations. Conditioned on the choices made before it, each factor's maximiser is consistent
 * with them, and the decoding certifies at the first MAP pass.
 *
 * A factor is conditioned through its MAP oracle: a variable fixed on gets +`big` in the
 * adjustment, one fixed off −`big`, and the bonus is taken off the value.
 */
export class SequentialDecoder {
  readonly #run: Ad3Run;
  /** The MAP pass's adjustment, restored after each conditioned call. */
  readonly #adjustment: Float64Array;
  /** Per variable: whether it is decided (or being decided); its value in #state. */
  readonly #decided: Uint8Array;
  readonly #state: Float64Array;
  /** Per factor, the unit it was last gathered for; the gathered factors. */
  readonly #seen: Int32Array;
  readonly #near: Int32Array;
  readonly #single: Int32Array;
  /** Per variable, 1 where a one-hot group holds it (the layout's plan, made once). */
  readonly #inGroup: Uint8Array;

  constructor(run: Ad3Run) {
    this.#run = run;
    const { layout } = run;
    const V = layout.variables;
    const F = layout.factors.length;
    const [[adjustment, state], [seen, near, single], [decided]] = carveAll(
      [layout.edgeVariable.length, V],
      [F, F, 1],
      [V],
    );
    this.#adjustment = adjustment;
    this.#state = state;
    this.#seen = seen.fill(-1);
    this.#near = near;
    this.#single = single;
    this.#decided = decided;
    this.#inGroup = planOf(layout).inGroup;
  }

  /**
   * Decodes at the adjustment the last MAP pass left in the run's input buffer (which it leaves
   * as it found it) and offers the assignment to the run's rounding, which scores it.
   */
  decode(): void {
    const run = this.#run;
    const { layout, input } = run;
    const { oneHot, variables, varEdgeStart, unary } = layout;
    const adjustment = this.#adjustment;
    const decided = this.#decided;
    const state = this.#state;
    adjustment.set(input);
    decided.fill(0);
    state.fill(0);
    // Larger than any adjustment or kernel score the factors can trade against: a fixing is
    // never given up for a better score while a configuration that keeps it exists.
    let largest = Math.max(1, planOf(layout).scores);
    for (let e = 0; e < adjustment.length; e++) {
      largest = Math.max(largest, Math.abs(adjustment[e]!));
    }
    const big = 1e6 * largest;
    let unit = 0;
    for (const group of oneHot) {
      const count = this.#gather(group, unit++);
      // The group counts as decided while its candidates are tried (each in state).
      for (let h = 0; h < group.length; h++) decided[group[h]!] = 1;
      let best = 0;
      let bestGain = Number.NEGATIVE_INFINITY;
      for (let g = 0; g < group.length; g++) {
        for (let h = 0; h < group.length; h++) state[group[h]!] = h === g ? 1 : 0;
        // A member in no factor has its θ here, not in an adjustment.
        const i = group[g]!;
        let gain = varEdgeStart[i + 1] === varEdgeStart[i] ? unary[i]! : 0;
        gain += this.#conditioned(count, big);
        if (gain > bestGain) {
          bestGain = gain;
          best = g;
        }
      }
      for (let h = 0; h < group.length; h++) state[group[h]!] = h === best ? 1 : 0;
    }
    const single = this.#single;
    for (let i = 0; i < variables; i++) {
      if (this.#inGroup[i] === 1) continue;
      decided[i] = 1;
      if (varEdgeStart[i + 1] === varEdgeStart[i]) {
        state[i] = unary[i]! > 0 ? 1 : 0;
        continue;
      }
      single[0] = i;
      const count = this.#gather(single, unit++);
      state[i] = 0;
      const off = this.#conditioned(count, big);
      state[i] = 1;
      const on = this.#conditioned(count, big);
      state[i] = on > off ? 1 : 0;
    }
    run.roundAndScore(state);
  }

  /** The factors on these variables into #near (each once); their count. */
  #gather(members: ArrayLike<number>, unit: number): number {
    const { varEdgeStart, varEdges, edgeFactor } = this.#run.layout;
    const seen = this.#seen;
    const near = this.#near;
    let count = 0;
    for (let m = 0; m < members.length; m++) {
      const i = members[m]!;
      for (let k = varEdgeStart[i]!; k < varEdgeStart[i + 1]!; k++) {
        const f = edgeFactor[varEdges[k]!]!;
        if (seen[f] !== unit) {
          seen[f] = unit;
          near[count++] = f;
        }
      }
    }
    return count;
  }

  /** Σ over the gathered factors of their MAP values given the decided variables. */
  #conditioned(count: number, big: number): number {
    const run = this.#run;
    const { edgeStart, edgeVariable } = run.layout;
    const { input } = run;
    const adjustment = this.#adjustment;
    const decided = this.#decided;
    const state = this.#state;
    let total = 0;
    for (let n = 0; n < count; n++) {
      const f = this.#near[n]!;
      const at = edgeStart[f]!;
      const end = edgeStart[f + 1]!;
      let on = 0;
      for (let e = at; e < end; e++) {
        const i = edgeVariable[e]!;
        if (decided[i] === 0) continue;
        if (state[i] === 1) {
          input[e] = adjustment[e]! + big;
          on++;
        } else input[e] = adjustment[e]! - big;
      }
      total += run.mapFactor(f) - big * on;
      for (let e = at; e < end; e++) input[e] = adjustment[e]!;
    }
    return total;
  }
}

/**
 * The decoding may cost at most this many MAP passes. It costs one MAP call per candidate value
 * per factor of each variable (a one-hot group: one per member): on AD3's graphs 3.5–6 passes
 * where factors are small and variables take few values, 20–200 on the large factors (the
 * parsing and SRL graphs, whose factors span a sentence; 30markers, with 55, took 1.3 s a decoding
 * against 0.1 s for its whole solve).
 */
const MAX_DECODING_PASSES = 8;

/**
 * Per layout: whether decoding is cheap, the largest finite score its kernels hold, and which
 * variables a one-hot group holds.
 */
interface DecodingPlan {
  readonly cheap: boolean;
  readonly scores: number;
  readonly inGroup: Uint8Array;
}

const plans = new WeakMap<Ad3Layout, DecodingPlan>();

/**
 * Whether decoding this layout costs at most {@link MAX_DECODING_PASSES} MAP passes, counting a
 * MAP call as its factor's configurations (a dense table) or its variables (the others).
 */
export function decodesCheaply(layout: Ad3Layout): boolean {
  return planOf(layout).cheap;
}

function planOf(layout: Ad3Layout): DecodingPlan {
  const known = plans.get(layout);
  if (known !== undefined) return known;
  const { factors, edgeStart, varEdgeStart, varEdges, edgeFactor, oneHot, variables } = layout;
  const work = new Float64Array(factors.length);
  let pass = 0;
  let scores = 0;
  for (let f = 0; f < factors.length; f++) {
    const kernel = factors[f]!.kernel;
    const size = edgeStart[f + 1]! - edgeStart[f]!;
    work[f] = kernel?.kind === "dense" ? kernel.scores.length : size;
    pass += work[f]!;
    if (kernel?.kind === "dense") {
      for (const score of kernel.scores)
        if (Number.isFinite(score)) scores = Math.max(scores, Math.abs(score));
    } else if (kernel?.kind === "pair") scores = Math.max(scores, Math.abs(kernel.score));
    else if (kernel?.kind === "box" && Number.isFinite(kernel.penalty)) {
      scores = Math.max(scores, kernel.penalty * size);
    }
  }
  // As the decoding goes: a unit's candidates, each a MAP call of every factor on its members.
  const seen = new Int32Array(factors.length).fill(-1);
  const inGroup = new Uint8Array(variables);
  let decoding = 0;
  let unit = 0;
  const visit = (members: ArrayLike<number>, candidates: number): void => {
    for (let m = 0; m < members.length; m++) {
      const i = members[m]!;
      for (let k = varEdgeStart[i]!; k < varEdgeStart[i + 1]!; k++) {
        const f = edgeFactor[varEdges[k]!]!;
        if (seen[f] === unit) continue;
        seen[f] = unit;
        decoding += candidates * work[f]!;
      }
    }
    unit++;
  };
  for (const group of oneHot) {
    for (let g = 0; g < group.length; g++) inGroup[group[g]!] = 1;
    visit(group, group.length);
  }
  const single = [0];
  for (let i = 0; i < variables; i++) {
    if (inGroup[i] === 1) continue;
    single[0] = i;
    visit(single, 2);
  }
  const plan = { cheap: decoding <= MAX_DECODING_PASSES * Math.max(1, pass), scores, inGroup };
  plans.set(layout, plan);
  return plan;
}
