import type { HashedFeatures } from "../features/hashing.js";
import { checkExample, checkScoreBuffer, checkTableShape } from "./checks.js";

/**
 * VW's cost-sensitive one-against-all (`--csoaa`) over its `gd` base learner: one linear regressor
 * per action on hashed sparse features, each regressing its action's cost with squared loss.
 *
 * The update is VW's default online rule, and each piece is there for a reason:
 * - AdaGrad (per-coordinate rates 1/√Σg²): hashed NLP features are wildly unequal in frequency, and a
 *   single global rate either starves the rare ones or makes the frequent ones oscillate.
 * - Per-feature normalisation (Ross, Mineiro & Langford 2013, "Normalized online learning"): the
 *   learner becomes invariant to a per-feature rescaling of its inputs, so a task author never has to
 *   standardise features (a distance of 1 or of 1000, a count or a fraction, all learn alike).
 * - Importance-invariant updates (Karampatziakis & Langford 2011): learning-to-search hands the
 *   learner importance weights spanning orders of magnitude (cost differences of roll-outs); a plain
 *   gradient step scaled by a large importance overshoots the label and diverges, whereas the
 *   invariant step is what h infinitesimal steps would do, so it approaches the label and never
 *   crosses it.
 */

/** √FLT_MIN, VW's X_MIN: below it x² underflows in float32, and 1/x would overflow the rates. */
const X_MIN = 1.084202172485504e-19;
const X2_MIN = X_MIN * X_MIN;
/** VW's `--l2` shrinks every weight lazily via one scalar; re-materialise it before it underflows. */
const CONTRACTION_MIN = 1e-9;

const STATE_FORMAT = "l2s-csoaa";
const STATE_VERSION = 1;

export interface RegressorOptions {
  /** log2 of the weight table's size, shared by every action (VW's -b). Default 20. */
  readonly bits?: number;
  /** VW's -l (default 0.5). */
  readonly learningRate?: number;
  /** VW's --power_t (default 0.5). */
  readonly powerT?: number;
  /** L2 regularisation (default 0). */
  readonly l2?: number;
  /** Per-coordinate AdaGrad rates (VW's default; `--sgd` turns it off with the next two). Default true. */
  readonly adaptive?: boolean;
  /** Per-feature scale-invariant updates. Default true. */
  readonly normalized?: boolean;
  /** Importance-invariant updates. Default true. */
  readonly invariant?: boolean;
  /**
   * Keep the running average of the weights as well (Polyak averaging, what makes the averaged
   * perceptron beat the plain one): {@link averaged} returns a regressor with the averaged weights.
   * Not in VW; online csoaa's last iterate is noisy on large sparse tasks, and the average costs one
   * float64 per slot. Not with `l2`. Default false.
   */
  readonly average?: boolean;
}

/** The settings a {@link RegressorOptions} field takes when it is absent. */
export const REGRESSOR_DEFAULTS = {
  bits: 20,
  learningRate: 0.5,
  powerT: 0.5,
  l2: 0,
  adaptive: true,
  normalized: true,
  invariant: true,
  average: false,
} as const;

/**
 * Everything a model file needs to resume the regressor: the settings, the learner's running
 * counters (which the update rule depends on, so predictions after further training match too) and
 * the weight table. All fields but `weights` are JSON-able numbers, strings and booleans.
 */
export interface RegressorState {
  readonly format: typeof STATE_FORMAT;
  readonly version: typeof STATE_VERSION;
  readonly actions: number;
  readonly bits: number;
  readonly learningRate: number;
  readonly powerT: number;
  readonly l2: number;
  readonly adaptive: boolean;
  readonly normalized: boolean;
  readonly invariant: boolean;
  /** Σ importance of the examples learned (VW's `t`): the non-adaptive rate decays as t^−powerT. */
  readonly examples: number;
  /** Σ importance over all per-action regressions (VW's `total_weight`). */
  readonly totalWeight: number;
  /** Σ importance · ‖x normalised per feature‖² over the same (VW's `normalized_sum_norm_x`). */
  readonly sumNormX: number;
  /** The lazy L2 factor every stored weight is multiplied by (VW's `sd->contraction`). */
  readonly contraction: number;
  /**
   * 2^bits slots × stride float32s; a slot is (weight[, Σ importance·g²·x² if adaptive][, max |x| if
   * normalized]), so stride = 1 + adaptive + normalized. `exportState` hands out the live table.
   */
  readonly weights: Float32Array;
}

/** Float32s per table slot: the weight, then Σg² if `adaptive`, then max |x| if `normalized`. */
export function strideOf(adaptive: boolean, normalized: boolean): number {
  return 1 + (adaptive ? 1 : 0) + (normalized ? 1 : 0);
}

export class CostSensitiveRegressor {
  readonly actions: number;
  readonly bits: number;

  private readonly learningRate: number;
  private readonly powerT: number;
  private readonly l2: number;
  private readonly adaptive: boolean;
  private readonly normalized: boolean;
  private readonly invariant: boolean;

  private readonly mask: number;
  private readonly stride: number;
  /** Offset of Σg² in a slot (unused without `adaptive`). */
  private readonly gOff: number;
  /** Offset of max |x| in a slot (unused without `normalized`). */
  private readonly nOff: number;
  /** VW's neg_norm_power: the exponent on N² that, with AdaGrad's G^−powerT, makes rates scale as 1/x². */
  private readonly negNormPower: number;
  /** powerT = ½ (the default): √ in place of pow, as VW's sqrt_rate templates do. */
  private readonly sqrtRate: boolean;
  private readonly weights: Float32Array;

  private examples = 0;
  /** Σ t·Δw per slot (t = updates so far, from 1): the average is w − sums/t. Null without averaging. */
  private readonly sums: Float64Array | null;
  private updates = 1;
  private totalWeight = 0;
  private sumNormX = 0;
  private contraction = 1;

  /** Per feature of the example being learned: its slot's offset for the current action (−1: skip). */
  private slots = new Int32Array(64);
  /** Per feature: its rate, computed in the pass that sums the prediction's step and reused by the step. */
  private rates = new Float64Array(64);

  constructor(actions: number, options: RegressorOptions = {}) {
    const d = REGRESSOR_DEFAULTS;
    const bits = options.bits ?? d.bits;
    const learningRate = options.learningRate ?? d.learningRate;
    const powerT = options.powerT ?? d.powerT;
    const l2 = options.l2 ?? d.l2;
    const adaptive = options.adaptive ?? d.adaptive;
    const normalized = options.normalized ?? d.normalized;
    const invariant = options.invariant ?? d.invariant;
    const average = options.average ?? d.average;
    const where = "CostSensitiveRegressor";
    checkTableShape(where, actions, bits);
    if (!(Number.isFinite(learningRate) && learningRate > 0)) {
      throw new RangeError(
        `${where}: learningRate must be a finite number > 0, got ${learningRate}`,
      );
    }
    if (!(Number.isFinite(powerT) && powerT >= 0)) {
      throw new RangeError(`${where}: powerT must be a finite number ≥ 0, got ${powerT}`);
    }
    if (!(Number.isFinite(l2) && l2 >= 0)) {
      throw new RangeError(`${where}: l2 must be a finite number ≥ 0, got ${l2}`);
    }
    for (const [name, flag] of [
      ["adaptive", adaptive],
      ["normalized", normalized],
      ["invariant", invariant],
    ] as const) {
      if (typeof flag !== "boolean") {
        throw new RangeError(`${where}: ${name} must be a boolean, got ${String(flag)}`);
      }
    }
    this.actions = actions;
    this.bits = bits;
    this.learningRate = learningRate;
    this.powerT = powerT;
    this.l2 = l2;
    this.adaptive = adaptive;
    this.normalized = normalized;
    this.invariant = invariant;
    this.mask = 2 ** bits - 1;
    this.stride = strideOf(adaptive, normalized);
    this.gOff = 1;
    this.nOff = adaptive ? 2 : 1;
    // With AdaGrad √G already grows like |x|, so only one more power of N is needed for a 1/x² rate
    // (N^(2·(powerT−1)) against G^−powerT ∝ |x|^−2·powerT); without it N² alone must supply it.
    this.negNormPower = adaptive ? powerT - 1 : -1;
    this.sqrtRate = powerT === 0.5;
    this.weights = new Float32Array(2 ** bits * this.stride);
    if (average && l2 > 0) {
      throw new RangeError("average and l2 cannot be combined: the lazy L2 factor is not averaged");
    }
    this.sums = average ? new Float64Array(2 ** bits) : null;
  }

  /**
   * out[a] += predicted cost of action a, for a = 0..actions−1 (linear in the features, so a caller
   * may add the scores of two feature vectors).
   */
  addScores(features: HashedFeatures, out: Float64Array): void {
    const A = this.actions;
    checkScoreBuffer(A, out);
    const { hashes, values } = features;
    const n = features.length;
    const w = this.weights;
    const mask = this.mask;
    const stride = this.stride;
    const c = this.contraction;
    for (let k = 0; k < n; k++) {
      const x = values[k]! * c;
      if (x === 0) continue;
      // (hash·A + a) mod 2^bits on 32-bit integers: imul keeps the low 32 bits exactly and the mask
      // keeps fewer, so the product never rounds as a float would past 2^53.
      const start = Math.imul(hashes[k]!, A) & mask;
      // A feature's actions are contiguous slots: unless they wrap around the table's end, walk
      // them without masking each index (the hot loop of prediction).
      if (start + A <= mask + 1) {
        for (let a = 0, o = start * stride; a < A; a++, o += stride) out[a] = out[a]! + w[o]! * x;
      } else {
        for (let a = 0; a < A; a++) out[a] = out[a]! + w[((start + a) & mask) * stride]! * x;
      }
    }
  }

  /**
   * One cost-sensitive example: for i < count, regress action actions[i] toward costs[i] (squared
   * loss), with importance weight `importance` (default 1). Actions not listed are not updated (only
   * a non-zero `l2` touches them: as in VW it shrinks every weight).
   */
  update(
    features: HashedFeatures,
    actions: ArrayLike<number>,
    costs: ArrayLike<number>,
    count: number,
    importance = 1,
  ): void {
    checkExample(this.actions, actions, costs, count, importance);
    if (count === 0 || importance === 0) return;
    if (features.length > this.slots.length) {
      const capacity = Math.max(features.length, this.slots.length * 2);
      this.slots = new Int32Array(capacity);
      this.rates = new Float64Array(capacity);
    }
    // One regression after another, each predicting afresh, as VW's csoaa calls learn per action:
    // with hash collisions (or a repeated action) an earlier regression can move a later prediction.
    for (let i = 0; i < count; i++) this.regress(features, actions[i]!, costs[i]!, importance);
    this.examples += importance;
    this.updates++;
  }

  /** One squared-loss step of action a's regressor toward `label`, with importance h (VW's gd::learn). */
  private regress(features: HashedFeatures, a: number, label: number, h: number): void {
    const { hashes, values } = features;
    const n = features.length;
    const w = this.weights;
    const slots = this.slots;
    const rates = this.rates;
    const mask = this.mask;
    const stride = this.stride;
    const adaptive = this.adaptive;
    const normalized = this.normalized;
    const sqrtRate = this.sqrtRate;
    const gOff = this.gOff;
    const nOff = this.nOff;
    const A = this.actions;
    const c = this.contraction;
    const sums = this.sums;
    const updates = this.updates;

    // Pass 1: locate the slots, raise the feature scales, predict. A feature seen at a larger |x|
    // than before has its weight rescaled as if that scale had been known from the start, so past
    // learning is not suddenly amplified (NAG, step 2). Unlike VW, which predicts before this pass,
    // the prediction here comes after the rescale, so the invariant step's "never past the label"
    // holds for the weights actually updated.
    let dot = 0;
    let live = 0;
    for (let k = 0; k < n; k++) {
      const x = values[k]!;
      if (x === 0) {
        slots[k] = -1; // neither predicts nor has a gradient: nothing to learn
        continue;
      }
      const o = ((Math.imul(hashes[k]!, A) + a) & mask) * stride;
      slots[k] = o;
      live++;
      if (normalized) {
        const ax = Math.max(Math.abs(x), X_MIN);
        const old = w[o + nOff]!;
        if (ax > old) {
          if (old > 0) {
            // The steps taken so far used rates sized for the smaller scale (∝ 1/N with AdaGrad,
            // 1/N² without), too large for this one: shrink the weight by the same factor, to
            // what it would hold had the larger scale been known from the start.
            const before = w[o]!;
            w[o] =
              w[o]! *
              (sqrtRate
                ? adaptive
                  ? old / ax
                  : (old / ax) * (old / ax)
                : ((ax / old) * (ax / old)) ** this.negNormPower);
            if (sums !== null) sums[o / stride] = sums[o / stride]! + updates * (w[o]! - before);
          }
          w[o + nOff] = ax;
        }
      }
      dot += w[o]! * (x * c);
    }
    if (live === 0) return;
    const p = dot;
    const residual = label - p;
    // Zero loss: VW skips the example (and a zero gradient would leave AdaGrad's 1/√G undefined).
    if (residual === 0) return;

    // Pass 2: AdaGrad's sums of squared gradients. The gradient of ℓ = (p − y)² wrt a weight is
    // 2(p − y)·x, and the importance counts as multiplicity (h copies of the example).
    const g2 = h * 4 * residual * residual;
    if (adaptive) {
      for (let k = 0; k < n; k++) {
        const o = slots[k]!;
        if (o >= 0) w[o + gOff] = w[o + gOff]! + g2 * Math.max(values[k]! * values[k]!, X2_MIN);
      }
    }
    // Pass 3: per-feature rates, and how far the prediction moves per unit of step ("pred per
    // update"). Rates are read after every sum is complete so that a feature occurring twice in the
    // example gets one rate for its slot, as VW's stored rate does: then the step moves its weight
    // along the slot's total gradient and can never push the prediction away from the label.
    let ppu = 0;
    let normX = 0;
    for (let k = 0; k < n; k++) {
      const o = slots[k]!;
      if (o < 0) continue;
      const x = values[k]!;
      const x2 = Math.max(x * x, X2_MIN);
      let rate = 1;
      if (adaptive) {
        const G = w[o + gOff]!;
        rate = sqrtRate ? 1 / Math.sqrt(G) : G ** -this.powerT;
      }
      if (normalized) {
        const N = w[o + nOff]!;
        const N2 = N * N;
        normX += x2 / N2;
        rate *= sqrtRate ? (adaptive ? 1 / N : 1 / N2) : N2 ** this.negNormPower;
      }
      rates[k] = rate;
      ppu += x2 * rate;
    }

    // The global normaliser: per-feature scaling alone makes every feature's step of unit size, so
    // an example with many active features would take a step as many times larger. Dividing by the
    // average normalised squared norm seen so far (raised like the per-feature rates) fixes the
    // step's scale per example without breaking per-feature scale invariance.
    let multiplier = 1;
    if (normalized) {
      this.sumNormX += h * normX;
      this.totalWeight += h;
      const avg = this.totalWeight / this.sumNormX;
      multiplier = sqrtRate ? (adaptive ? Math.sqrt(avg) : avg) : avg ** -this.negNormPower;
      ppu *= multiplier;
    }
    if (!(ppu > 0 && Number.isFinite(ppu))) return; // an underflowed G or scale: no usable step

    // VW's get_scale: AdaGrad decays rates itself; plain SGD decays the global rate as t^−powerT.
    let scale = this.learningRate * h;
    if (!adaptive && this.powerT !== 0) scale *= (this.examples + h) ** -this.powerT;

    // The step u, with the prediction moving by u·ppu. The gradient step is 2(y − p)·scale; the
    // invariant step integrates the ODE dp/dτ = 2(y − p)·ppu over τ ∈ [0, scale], i.e. h
    // infinitesimal updates, so it approaches y exponentially and never overshoots. expm1 keeps the
    // small-step limit exact where VW switches to the Taylor expansion.
    let u = this.invariant
      ? (residual * -Math.expm1(-2 * scale * ppu)) / ppu
      : 2 * residual * scale;

    if (this.l2 > 0 && Math.abs(u) > 1e-8) {
      // VW's lazy L2: the step's effective rate ηbar = −u/ℓ' shrinks every weight by (1 − λ·ηbar),
      // kept as one scalar so a step costs O(active features) instead of O(table).
      const derivative = -2 * residual;
      const etaBar = Math.abs(derivative) > 1e-8 ? -u / derivative : 0;
      const shrink = 1 - this.l2 * etaBar;
      if (shrink <= 0) {
        this.clearWeights(); // λ·ηbar ≥ 1 shrinks everything to zero
      } else {
        this.contraction *= shrink;
        if (this.contraction < CONTRACTION_MIN) this.syncContraction();
      }
      u /= this.contraction; // stored weights are true weights ÷ contraction
    }

    // Pass 4: the step itself, w_i += u·multiplier·rate_i·x_i, which moves p by exactly u·ppu
    // (unless two features of this example share a slot: then by the same sign, not the same size).
    const step = u * multiplier;
    for (let k = 0; k < n; k++) {
      const o = slots[k]!;
      if (o < 0) continue;
      const delta = step * rates[k]! * values[k]!;
      w[o] = w[o]! + delta;
      if (sums !== null) sums[o / stride] = sums[o / stride]! + updates * delta;
    }
  }

  /** Folds the lazy L2 factor into the stored weights, before float32 weights lose their precision. */
  private syncContraction(): void {
    const w = this.weights;
    const stride = this.stride;
    const c = this.contraction;
    for (let o = 0; o < w.length; o += stride) w[o] = w[o]! * c;
    this.contraction = 1;
  }

  private clearWeights(): void {
    const w = this.weights;
    const stride = this.stride;
    for (let o = 0; o < w.length; o += stride) w[o] = 0;
    this.contraction = 1;
  }

  /** Whether this regressor keeps the average of its weights ({@link averaged}). */
  get averages(): boolean {
    return this.sums !== null;
  }

  /**
   * A regressor whose weights are the average of this one's over its updates (this one's own when
   * it does not average): what a trained policy should predict with. Its other state is this one's.
   */
  averaged(): CostSensitiveRegressor {
    const state = this.exportState();
    const weights = state.weights.slice();
    const sums = this.sums;
    if (sums !== null) {
      const t = this.updates;
      const stride = this.stride;
      for (let s = 0; s < sums.length; s++)
        weights[s * stride] = weights[s * stride]! - sums[s]! / t;
    }
    return CostSensitiveRegressor.fromState({ ...state, weights });
  }

  /** For model files: settings, counters and the live weight table (not a copy). */
  exportState(): RegressorState {
    return {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      actions: this.actions,
      bits: this.bits,
      learningRate: this.learningRate,
      powerT: this.powerT,
      l2: this.l2,
      adaptive: this.adaptive,
      normalized: this.normalized,
      invariant: this.invariant,
      examples: this.examples,
      totalWeight: this.totalWeight,
      sumNormX: this.sumNormX,
      contraction: this.contraction,
      weights: this.weights,
    };
  }

  /** Rebuilds a regressor from {@link exportState}'s output, copying the table; validates every field. */
  static fromState(state: RegressorState): CostSensitiveRegressor {
    if (typeof state !== "object" || state === null) {
      throw new Error(`RegressorState: expected an object, got ${describe(state)}`);
    }
    const s = state as unknown as Record<string, unknown>;
    const bad = (field: string, expected: string) =>
      new Error(`RegressorState.${field}: expected ${expected}, got ${describe(s[field])}`);
    const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

    if (s.format !== STATE_FORMAT) throw bad("format", JSON.stringify(STATE_FORMAT));
    if (s.version !== STATE_VERSION) throw bad("version", String(STATE_VERSION));
    const { actions, bits } = s;
    if (!Number.isInteger(actions) || (actions as number) < 1) {
      throw bad("actions", "an integer ≥ 1");
    }
    if (!Number.isInteger(bits) || (bits as number) < 1 || (bits as number) > 30) {
      throw bad("bits", "an integer in 1..30");
    }
    if ((actions as number) > 2 ** (bits as number)) {
      throw bad("actions", `at most 2^bits = ${2 ** (bits as number)}`);
    }
    if (!finite(s.learningRate) || s.learningRate <= 0)
      throw bad("learningRate", "a finite number > 0");
    if (!finite(s.powerT) || s.powerT < 0) throw bad("powerT", "a finite number ≥ 0");
    if (!finite(s.l2) || s.l2 < 0) throw bad("l2", "a finite number ≥ 0");
    for (const flag of ["adaptive", "normalized", "invariant"]) {
      if (typeof s[flag] !== "boolean") throw bad(flag, "a boolean");
    }
    for (const counter of ["examples", "totalWeight", "sumNormX"]) {
      const v = s[counter];
      if (!finite(v) || v < 0) throw bad(counter, "a finite number ≥ 0");
    }
    if (!finite(s.contraction) || s.contraction <= 0)
      throw bad("contraction", "a finite number > 0");
    if (s.normalized && (s.totalWeight as number) > 0 && !((s.sumNormX as number) > 0)) {
      throw bad("sumNormX", "a number > 0 once totalWeight > 0 (every regression adds to both)");
    }
    const adaptive = s.adaptive as boolean;
    const normalized = s.normalized as boolean;
    const stride = strideOf(adaptive, normalized);
    const size = 2 ** (bits as number) * stride;
    const weights = s.weights;
    if (!(weights instanceof Float32Array) || weights.length !== size) {
      throw bad(
        "weights",
        `a Float32Array of 2^bits × stride = 2^${bits} × ${stride} = ${size} values`,
      );
    }
    // Per-slot sanity: one pass over the table, cheap next to reading the model file.
    const nOff = adaptive ? 2 : 1;
    for (let o = 0; o < size; o += stride) {
      if (!Number.isFinite(weights[o]!)) {
        throw new Error(
          `RegressorState.weights[${o}]: expected a finite weight, got ${weights[o]}`,
        );
      }
      if (adaptive && !(weights[o + 1]! >= 0 && Number.isFinite(weights[o + 1]!))) {
        throw new Error(
          `RegressorState.weights[${o + 1}]: expected a finite Σg² ≥ 0, got ${weights[o + 1]}`,
        );
      }
      if (normalized && !(weights[o + nOff]! >= 0 && Number.isFinite(weights[o + nOff]!))) {
        throw new Error(
          `RegressorState.weights[${o + nOff}]: expected a finite max |x| ≥ 0, got ${weights[o + nOff]}`,
        );
      }
    }

    const regressor = new CostSensitiveRegressor(actions as number, {
      bits: bits as number,
      learningRate: s.learningRate,
      powerT: s.powerT,
      l2: s.l2,
      adaptive,
      normalized,
      invariant: s.invariant as boolean,
    });
    regressor.weights.set(weights);
    regressor.examples = s.examples as number;
    regressor.totalWeight = s.totalWeight as number;
    regressor.sumNormX = s.sumNormX as number;
    regressor.contraction = s.contraction;
    return regressor;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined (missing)";
  if (value === null) return "null";
  if (ArrayBuffer.isView(value)) {
    return `${value.constructor.name} of length ${(value as unknown as ArrayLike<unknown>).length}`;
  }
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  return typeof value;
}
