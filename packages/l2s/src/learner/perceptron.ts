import type { HashedFeatures } from "../features/hashing.js";
import { checkExample, checkScoreBuffer, checkTableShape } from "./checks.js";

const STATE_FORMAT = "l2s-perceptron";
const STATE_VERSION = 1;

export interface CostSensitivePerceptronOptions {
  /** log2 of the weight table's size, shared by every action. Default 22. */
  readonly bits?: number;
  /** Predict with the average of the weights over the updates (default true: the averaged perceptron). */
  readonly average?: boolean;
}

export interface PerceptronState {
  readonly format: typeof STATE_FORMAT;
  readonly version: typeof STATE_VERSION;
  readonly actions: number;
  readonly bits: number;
  /** Examples seen (the averaging counter). */
  readonly updates: number;
  /** 2^bits float32 weights, (hash·actions + action) mod 2^bits. */
  readonly weights: Float32Array;
}

/** The settings a {@link CostSensitivePerceptronOptions} field takes when it is absent. */
export const PERCEPTRON_DEFAULTS = { bits: 22, average: true } as const;

/**
 * A cost-sensitive multiclass perceptron (Collins's averaged perceptron, updates scaled by the cost
 * difference): when the predicted action costs more than the cheapest, the cheapest's score rises
 * and the predicted one's falls by x·(cost difference). Not VW's learner: an alternative base learner
 * for when csoaa's squared-loss regression (whose AdaGrad rates shrink to nothing after a pass)
 * stops improving with more passes — on UD English EWT POS it does, and this does not.
 * Scores are reported as costs (−w·x), so the policy's argmin is the perceptron's argmax.
 */
export class CostSensitivePerceptron {
  readonly actions: number;
  readonly bits: number;
  private readonly mask: number;
  private readonly weights: Float32Array;
  private readonly sums: Float64Array | null;
  private updates = 1;
  private readonly scratch: Float64Array;

  constructor(actions: number, options: CostSensitivePerceptronOptions = {}) {
    const bits = options.bits ?? PERCEPTRON_DEFAULTS.bits;
    checkTableShape("CostSensitivePerceptron", actions, bits);
    this.actions = actions;
    this.bits = bits;
    this.mask = 2 ** bits - 1;
    this.weights = new Float32Array(2 ** bits);
    this.sums =
      (options.average ?? PERCEPTRON_DEFAULTS.average) ? new Float64Array(2 ** bits) : null;
    this.scratch = new Float64Array(actions);
  }

  get averages(): boolean {
    return this.sums !== null;
  }

  addScores(features: HashedFeatures, out: Float64Array): void {
    const A = this.actions;
    checkScoreBuffer(A, out);
    const { hashes, values } = features;
    const w = this.weights;
    const mask = this.mask;
    const size = mask + 1;
    for (let k = 0; k < features.length; k++) {
      const x = values[k]!;
      const start = Math.imul(hashes[k]!, A) & mask;
      // The hot loop of prediction (a parser scores ~50 relations over ~100 features per arc): a
      // feature's actions are contiguous, so unless they wrap around the table's end, read them as
      // one run without masking each index.
      if (start + A <= size) {
        if (x === 1) for (let a = 0; a < A; a++) out[a] = out[a]! - w[start + a]!;
        else for (let a = 0; a < A; a++) out[a] = out[a]! - w[start + a]! * x;
      } else {
        for (let a = 0; a < A; a++) out[a] = out[a]! - w[(start + a) & mask]! * x;
      }
    }
  }

  update(
    features: HashedFeatures,
    actions: ArrayLike<number>,
    costs: ArrayLike<number>,
    count: number,
    importance = 1,
  ): void {
    checkExample(this.actions, actions, costs, count, importance);
    const scores = this.scratch.fill(0);
    this.addScores(features, scores);
    let predicted = -1;
    let predictedCost = 0;
    let cheapest = -1;
    let cheapestCost = Number.POSITIVE_INFINITY;
    let best = Number.POSITIVE_INFINITY;
    // checkExample has vetted every listed action and cost.
    for (let i = 0; i < count; i++) {
      const a = actions[i]!;
      const c = costs[i]!;
      if (scores[a]! < best) {
        best = scores[a]!;
        predicted = a;
        predictedCost = c;
      }
      if (c < cheapestCost) {
        cheapestCost = c;
        cheapest = a;
      }
    }
    if (predicted >= 0 && predictedCost > cheapestCost && importance > 0) {
      const step = (predictedCost - cheapestCost) * importance;
      const { hashes, values } = features;
      const w = this.weights;
      const sums = this.sums;
      const mask = this.mask;
      const A = this.actions;
      const t = this.updates;
      for (let k = 0; k < features.length; k++) {
        const delta = step * values[k]!;
        const base = Math.imul(hashes[k]!, A);
        const up = (base + cheapest) & mask;
        const down = (base + predicted) & mask;
        w[up] = w[up]! + delta;
        w[down] = w[down]! - delta;
        if (sums !== null) {
          sums[up] = sums[up]! + t * delta;
          sums[down] = sums[down]! - t * delta;
        }
      }
    }
    this.updates++;
  }

  /** The averaged perceptron: weights w − Σt·Δ/t (this one's own without averaging). */
  averaged(): CostSensitivePerceptron {
    const copy = new CostSensitivePerceptron(this.actions, { bits: this.bits, average: false });
    const sums = this.sums;
    const t = this.updates;
    for (let i = 0; i < this.weights.length; i++) {
      copy.weights[i] = sums === null ? this.weights[i]! : this.weights[i]! - sums[i]! / t;
    }
    copy.updates = this.updates;
    return copy;
  }

  exportState(): PerceptronState {
    return {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      actions: this.actions,
      bits: this.bits,
      updates: this.updates,
      weights: this.weights,
    };
  }

  /** Rebuilds a perceptron (without averaging state: a saved one predicts) from its state. */
  static fromState(state: PerceptronState): CostSensitivePerceptron {
    const s = state as unknown as Record<string, unknown>;
    const bad = (field: string, expected: string) =>
      new Error(
        `PerceptronState.${field}: expected ${expected}, got ${JSON.stringify(s[field]) ?? "undefined"}`,
      );
    if (s.format !== STATE_FORMAT) throw bad("format", JSON.stringify(STATE_FORMAT));
    if (s.version !== STATE_VERSION) throw bad("version", String(STATE_VERSION));
    if (!Number.isInteger(s.actions) || (s.actions as number) < 1)
      throw bad("actions", "an integer ≥ 1");
    if (!Number.isInteger(s.bits) || (s.bits as number) < 1 || (s.bits as number) > 30) {
      throw bad("bits", "an integer in 1..30");
    }
    if (!Number.isInteger(s.updates) || (s.updates as number) < 1)
      throw bad("updates", "an integer ≥ 1");
    const weights = s.weights;
    const size = 2 ** (s.bits as number);
    if (!(weights instanceof Float32Array) || weights.length !== size) {
      throw new Error(
        `PerceptronState.weights: expected a Float32Array of 2^bits = ${size} values`,
      );
    }
    for (let i = 0; i < size; i++) {
      if (!Number.isFinite(weights[i]!))
        throw new Error(
          `PerceptronState.weights[${i}]: expected a finite weight, got ${weights[i]}`,
        );
    }
    const p = new CostSensitivePerceptron(s.actions as number, {
      bits: s.bits as number,
      average: false,
    });
    p.weights.set(weights);
    p.updates = s.updates as number;
    return p;
  }
}
