import type { Slave } from "../solver.js";
import { Ad3Layout, Ad3Run, type PrimalHooks } from "./ad3/admm.js";
import type { BinaryFactor, BinaryFactorBinding } from "./ad3/binary-factor.js";
import { type Ad3Options, branchAndBound, runAd3 } from "./ad3/engine.js";
import {
  atMostOneFactor,
  budgetFactor,
  type LinearConstraintFactor,
  linearConstraintFactor,
  orFactor,
} from "./ad3/logic-factors.js";
import { type CompiledProblem, slaveIndicators } from "./compiled-problem.js";
import { type LabellingSolution, LabellingTracker } from "./labelling-score.js";

const NEG_INF = Number.NEGATIVE_INFINITY;

/**
 * A labelling slave seen as a factor over its n·L indicators (j*L + t): its MAP is `maximize`,
 * its quadratic step its own `project` when it has one (else the active-set method).
 */
class SlaveFactor implements BinaryFactor {
  readonly name: string;
  readonly size: number;
  readonly project?: (v: Float64Array, scale: number, out: Float64Array) => void;
  /** The last maximiser's labels (a view on the step's labels of every slave). */
  readonly labels: Int32Array;
  readonly #slave: Slave;
  readonly #L: number;
  readonly #scoring: Int32Array;

  constructor(slave: Slave, L: number, labels: Int32Array) {
    this.#slave = slave;
    this.#L = L;
    this.name = slave.name;
    this.size = slave.n * L;
    this.labels = labels;
    this.#scoring = new Int32Array(slave.n);
    if (slave.project !== undefined) {
      const own = slave.project.bind(slave);
      this.project = own;
    }
  }

  map(adjustment: Float64Array, out: Float64Array): number {
    const result = this.#slave.maximize(adjustment);
    const L = this.#L;
    const { labels, indicators } = result;
    if (indicators !== undefined) {
      for (let g = 0; g < this.size; g++) out[g] = indicators[g]!;
    } else {
      out.fill(0);
      for (let j = 0; j < labels.length; j++) out[j * L + labels[j]!] = 1;
    }
    this.labels.set(labels);
    return result.value;
  }

  score(z: ArrayLike<number>): number {
    const L = this.#L;
    const labels = this.#scoring;
    for (let j = 0; j < labels.length; j++) {
      let best = 0;
      for (let t = 1; t < L; t++) if (z[j * L + t]! > z[j * L + best]!) best = t;
      if (z[j * L + best] !== 1) return NEG_INF;
      labels[j] = best;
    }
    return this.#slave.score(labels);
  }
}

/**
 * The logic factor a hard row is, where it is one (AD3's closed forms; the same polytope as the
 * row over the box): Σ z ≤ 1 is AtMostOne ("at most one author field"), Σ z ≤ b a BUDGET,
 * −Σ z ≤ −1 an OR ("at least one"). Otherwise null: the linear-constraint factor.
 */
function logicFactorOf(coefficients: Float64Array, rhs: number): BinaryFactor | null {
  const size = coefficients.length;
  if (coefficients.every((c) => c === 1) && Number.isInteger(rhs) && rhs >= 1) {
    return rhs === 1 ? atMostOneFactor(size) : rhs < size ? budgetFactor(size, rhs) : null;
  }
  if (coefficients.every((c) => c === -1) && rhs === -1) return orFactor(size);
  return null;
}

/**
 * Where a subgradient run left off (the `auto` step): its best labelling and dual, which AD3's
 * bounds start from, and its iterations, which AD3 numbers its own after.
 */
export interface Ad3Start {
  readonly labels: Int32Array;
  readonly dual: number;
  readonly iterations: number;
}

/**
 * The master's AD3 step: the slaves become factors over the n·L indicators, each constraint row a
 * logic factor where it is one (see logicFactorOf), else a linear-constraint factor (hard: the box
 * cut by a·z ≤ b; soft: the concave score −c·max(0, a·z − b) — the very relaxation the subgradient
 * step dualises, so both steps bound the same LP), and AD3 runs over them. Candidates are the
 * subgradient step's, kept by the same {@link LabellingTracker} on the run's bounds: the labelling
 * of each slave that labels every position, at every MAP pass, and the per-position argmax of the
 * posteriors. λ_k is the constraint factor's multiplier at the last MAP pass.
 * `after` carries a stalled subgradient run's bounds over; AD3's multipliers start at zero (started
 * at the subgradient's λ instead, it certified no more CoNLL documents and took longer).
 */
export function solveWithAd3(
  problem: CompiledProblem,
  o: Ad3Options,
  after?: Ad3Start,
): LabellingSolution {
  const { n, L, slaves, positions, cover, localOffset, A } = problem;
  const S = slaves.length;
  // The slaves' last maximisers, laid end to end as the subgradient step keeps them.
  const slaveLabels = new Int32Array(localOffset[S]!);
  const bindings: BinaryFactorBinding[] = slaves.map((slave, s) => ({
    factor: new SlaveFactor(slave, L, slaveLabels.subarray(localOffset[s]!, localOffset[s + 1]!)),
    variables: slaveIndicators(problem, s),
  }));
  const m = A === null ? 0 : A.m;
  // Per row, the linear-constraint factor that reports its multiplier (from the final λ), and
  // the index of the factor that stands for it in the run (−1: the row is empty or free).
  const rowMultiplier: (LinearConstraintFactor | null)[] = [];
  const rowFactor = new Int32Array(m).fill(-1);
  for (let k = 0; k < m; k++) {
    const a = A!;
    const from = a.rowStart[k]!;
    const to = a.rowStart[k + 1]!;
    if (a.upper[k] === 0 || from === to) {
      rowMultiplier.push(null);
      continue;
    }
    const coefficients = a.coefficient.slice(from, to);
    const hard = a.hard[k] === 1;
    const linear = linearConstraintFactor({
      coefficients,
      rhs: a.rhs[k]!,
      ...(hard ? {} : { penalty: a.upper[k]! }),
    });
    rowMultiplier.push(linear);
    rowFactor[k] = bindings.length;
    bindings.push({
      factor: (hard ? logicFactorOf(coefficients, a.rhs[k]!) : null) ?? linear,
      variables: a.index.slice(from, to),
    });
  }

  // Weighted consensus: a slave's copy of an indicator weighs as much as the constraint factors
  // on it together (shared among the cover(i) slaves covering it), not 1/(1 + constraints) of
  // the average. The slaves' edges come first, in their positions' order.
  const constraintCopies = new Float64Array(n * L);
  let edges = localOffset[S]! * L;
  for (let f = S; f < bindings.length; f++) {
    const { variables } = bindings[f]!;
    for (let j = 0; j < variables.length; j++) constraintCopies[variables[j]!]!++;
    edges += variables.length;
  }
  const weights = new Float64Array(edges).fill(1);
  positions.forEach((map, s) => {
    const at = localOffset[s]! * L;
    for (let j = 0; j < map.length; j++) {
      for (let t = 0; t < L; t++) {
        const copies = constraintCopies[map[j]! * L + t]!;
        weights[at + j * L + t] = Math.max(1, copies / cover[map[j]!]!);
      }
    }
  });
  const run = new Ad3Run(new Ad3Layout({ variables: n * L, factors: bindings }, weights));
  const views = slaves.map((slave) => new Int32Array(slave.n));
  const labelling = new LabellingTracker(
    problem,
    run.bounds,
    views,
    new Float64Array(m),
    new Int32Array(n),
  );
  if (after !== undefined) {
    labelling.offer(after.labels);
    run.bounds.seeDual(after.dual, 0, 0);
  }
  const candidate = new Int32Array(n);
  let rounds = 0;
  const hooks: PrimalHooks = {
    seedFactors: S,
    round(p) {
      for (let i = 0; i < n; i++) {
        let best = 0;
        for (let t = 1; t < L; t++) if (p[i * L + t]! > p[i * L + best]!) best = t;
        candidate[i] = best;
      }
      if (rounds++ === 0) labelling.firstLabels.set(candidate);
      labelling.offer(candidate);
    },
    afterMapPass() {
      labelling.offerWholeSlaves(slaveLabels, candidate);
    },
  };
  // The decoders' stall rule counts dual passes: a pass at least every 5 iterations keeps it
  // measured in iterations as the subgradient step's is.
  const options: Ad3Options = { dualEvery: 5, ...o };
  const { status, iterations } =
    options.exact === true
      ? branchAndBound(run, options, hooks)
      : runAd3(run, options, hooks, after?.iterations ?? 0);
  // λ_k: the row's own multiplier in the MAP of its factor at the final agreement multipliers.
  const multipliers = new Float64Array(m);
  const { edgeStart } = run.layout;
  rowMultiplier.forEach((linear, k) => {
    if (linear === null) return;
    const f = rowFactor[k]!;
    const adjustment = run.lambda.slice(edgeStart[f]!, edgeStart[f + 1]!);
    linear.map(adjustment, new Float64Array(adjustment.length));
    const multiplier = linear.multiplier();
    multipliers[k] = Number.isFinite(multiplier) ? multiplier : 0;
  });
  return labelling.solution(status, iterations, multipliers);
}
