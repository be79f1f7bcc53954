import {
  type ChainScores,
  type LinearConstraint,
  ProblemValidationError,
  type TransitionMask,
  validateConstraint,
} from "@lagrange/core";
import { isPositionSpecific } from "@lagrange/core/chain";

/**
 * Core's {@link TransitionMask} (a scheme's validity, a CRF's constraints), whose `allowed` may
 * also be position-specific — length (n−1)·L², `allowed[(i−1)·L² + a·L + b]` between positions
 * i−1 and i — plus labels forbidden per position. 1 = allowed, 0 = forbidden; absent fields forbid
 * nothing.
 */
export interface LabelMask extends TransitionMask {
  /** `allowedLabels[i·L + t] = 0` forbids label t at position i (a −∞ unary score, a fixed token). */
  readonly allowedLabels?: Uint8Array;
}

/** One sentence for {@link LabelConstraintTracker.reset}. */
export interface TrackedSentence {
  readonly n: number;
  readonly L: number;
  readonly mask?: LabelMask | null;
  /** Hard (no penalty) and soft (penalty) rules over the indicators `i·L + t`, as in core. */
  readonly constraints?: readonly LinearConstraint[];
}

export interface LabelConstraintTrackerOptions {
  /**
   * Slack under which `a·y − b` counts as met (default 1e-9, core's `constraintPenalty` default):
   * float coefficients do not flip a decision.
   */
  readonly tolerance?: number;
  /**
   * How a constraint's "minimum still to come" is computed. `true` (default): along the completions
   * the mask allows, by a backward dynamic programme per constraint (O(n·L²) for a constraint, on
   * the positions up to its last term), which makes the mask and any one constraint exact
   * together. `false`: the plain suffix sums of per-position minima over the labels viable there
   * (O(n·L) for a constraint), exact for one constraint when there is no transition mask, and a
   * necessary condition otherwise. Without a transition mask both are the same.
   */
  readonly followMask?: boolean;
}

/**
 * What the last {@link LabelConstraintTracker.allowedAt} had to give up: `none`; `mask`: no label
 * was valid under the transition mask after the committed prefix (only after a committed label
 * the mask forbade), so labels that can still end validly were offered; `constraints`: every
 * label broke a hard constraint's necessary condition, so the least-violating ones were offered.
 */
export type TrackerFallback = "none" | "mask" | "constraints";

/** A decision's allowed actions in the form {@link PredictRequest} takes (fresh arrays). */
export interface AllowedActions {
  readonly allowed: number[];
  /** Parallel to `allowed`; absent when every cost is 0 (no soft rule is at stake here). */
  readonly allowedCosts?: number[];
}

const EMPTY_F64 = new Float64Array(0);

/**
 * The labels a left-to-right labeller may take at each position of one sentence, given the labels
 * it has committed so far, so that it never emits a sequence the transition mask or a hard
 * constraint forbids, and what each label costs under the soft constraints. The bridge between
 * core's constraint machinery and learning to search's `allowed` / `allowedCosts`.
 *
 * Usage: {@link reset} once per sentence (precomputation), then for i = 0 … n−1:
 * {@link allowedAt}(i, …) and {@link commit}(i, label). {@link restart} starts another
 * left-to-right pass over the same sentence (a roll-out) without redoing the precomputation.
 *
 * **Hard rules.**
 * - The mask (transitions, start, end, per-position labels): backward reachability is precomputed
 *   once per sentence (O(n·L²)); a label is offered only if some mask-valid completion exists
 *   after it, so a decider that keeps to the offered labels never reaches a dead end. Exact: a
 *   label is offered iff some full labelling that extends the prefix with it satisfies the mask.
 * - Each linear constraint `a·y ≤ b` is tracked as its partial sum over the committed positions
 *   plus the least contribution the positions still to come can make (precomputed suffix minima:
 *   per label at each position, the least Σ of its coefficients over the mask-valid completions
 *   that start with that label; see `followMask`). A label is offered only if
 *   partial + (its minimum from here) ≤ b. An at-most-k count is thus never exceeded, and an
 *   at-least-one constraint forces its label as the end approaches.
 *
 * This is exact for the mask and any **one** constraint at a time (offered ⇔ some valid
 * completion meets that constraint), but for several constraints together it is only a necessary
 * condition: each may be satisfiable on its own by a different completion, and the intersection can
 * become empty later. Then the tracker falls back to the labels of least total hard excess
 * (Σ max(0, partial + minimum − b)) and reports it ({@link lastFallback},
 * {@link constraintFallbacks}); it never throws for that and never offers a hard violation
 * silently (a hard constraint already decided and violated makes every later decision a
 * fallback). A mask no labelling can satisfy is dropped for the sentence and reported
 * ({@link maskFeasible} false). The exactness claims hold while the committed labels are offered
 * ones; a committed label the mask forbids is counted ({@link maskBreaks}) and recovered from.
 *
 * Costs: {@link reset} O(n·L² + Σ_k (last position of k)·L²) with a transition mask
 * (O(n·L + Σ_k …·L) without one, or with `followMask: false`); {@link allowedAt} O(m·L) for m
 * constraints; {@link commit} O(terms at that position).
 *
 * **Soft rules** (penalty p): a label's cost is p × the increase in the minimal achievable violation
 * max(0, partial + minimum − b) that choosing it causes, relative to the best label the mask
 * allows here; summed over soft constraints. Exact per constraint in the same sense: it equals the
 * brute-force increase of that constraint's least violation over mask-valid completions.
 *
 * Everything lives in typed arrays sized to the largest sentence seen and reused: no allocation
 * per decision (per sentence only when a sentence is larger than any before).
 */
export class LabelConstraintTracker {
  readonly #tolerance: number;
  readonly #followMask: boolean;

  #n = 0;
  #L = 0;
  #m = 0;
  #constraints: readonly LinearConstraint[] = [];

  // The mask, copied or derived per sentence.
  #trans = new Uint8Array(0);
  /** 0: one L×L block for every position; L·L: a block per position pair. */
  #transStride = 0;
  #hasTransitions = false;
  #start = new Uint8Array(0);
  #end = new Uint8Array(0);
  #labelOk = new Uint8Array(0);
  /** viable[i·L + t]: t at i can be completed to a mask-valid suffix. */
  #viable = new Uint8Array(0);
  #maskFeasible = true;

  // Constraints.
  #rhs = EMPTY_F64;
  /** −1: hard; otherwise the penalty. */
  #penalty = EMPTY_F64;
  /** The last position with a term (−1: none). */
  #last = new Int32Array(0);
  /** Offset of constraint k's block in #rest: (last_k + 1)·L entries. */
  #offset = new Int32Array(0);
  /** rest[offset_k + i·L + t]: least Σ of k's coefficients at positions ≥ i, label t at i. */
  #rest = EMPTY_F64;
  #provablyInfeasible = false;

  // Terms by position (CSR): what commit(i, label) adds to each partial sum.
  #posStart = new Int32Array(1);
  #termConstraint = new Int32Array(0);
  #termLabel = new Int32Array(0);
  #termCoefficient = EMPTY_F64;

  // The pass.
  #partial = EMPTY_F64;
  #labels = new Int32Array(0);
  #next = 0;
  #prev = -1;
  #maskFallbacks = 0;
  #constraintFallbacks = 0;
  #maskBreaks = 0;
  #lastFallback: TrackerFallback = "none";

  // Per-decision scratch (length L).
  #candidate = new Uint8Array(0);
  #excess = EMPTY_F64;
  #cost = EMPTY_F64;
  #outAllowed = new Int32Array(0);
  #outCosts = EMPTY_F64;

  constructor(options: LabelConstraintTrackerOptions = {}) {
    const tolerance = options.tolerance ?? 1e-9;
    if (!(tolerance >= 0 && Number.isFinite(tolerance))) {
      throw new ProblemValidationError(
        "tolerance",
        `expected a finite number ≥ 0, got ${tolerance}`,
      );
    }
    this.#tolerance = tolerance;
    this.#followMask = options.followMask ?? true;
  }

  /** Positions in the sentence. */
  get n(): number {
    return this.#n;
  }
  /** Labels. */
  get L(): number {
    return this.#L;
  }
  /** The next position to decide (0 … n; n when the pass is complete). */
  get position(): number {
    return this.#next;
  }
  /** The committed labels of this pass (positions 0 … position−1 are meaningful); a live view. */
  get labels(): Int32Array {
    return this.#labels.subarray(0, this.#n);
  }
  /** The sentence's constraints, as given. */
  get constraints(): readonly LinearConstraint[] {
    return this.#constraints;
  }
  /** False when no labelling satisfies the mask: the mask was then dropped for this sentence. */
  get maskFeasible(): boolean {
    return this.#maskFeasible;
  }
  /**
   * True when the sentence provably has no labelling meeting the mask and the hard constraints:
   * the mask is infeasible, or one hard constraint alone cannot be met by any mask-valid
   * labelling. (False does not prove feasibility when there are several hard constraints.)
   */
  get provablyInfeasible(): boolean {
    return this.#provablyInfeasible;
  }
  /** Decisions of this pass where the hard constraints could not all be kept (least violation offered). */
  get constraintFallbacks(): number {
    return this.#constraintFallbacks;
  }
  /** Decisions of this pass where no mask-valid label followed the committed prefix. */
  get maskFallbacks(): number {
    return this.#maskFallbacks;
  }
  /** Commits of this pass that broke the mask (a label it forbade there, after its predecessor). */
  get maskBreaks(): number {
    return this.#maskBreaks;
  }
  /** What the last {@link allowedAt} had to give up. */
  get lastFallback(): TrackerFallback {
    return this.#lastFallback;
  }

  /** Prepares one sentence (validating it) and starts a pass. */
  reset(sentence: TrackedSentence): this {
    const { n, L } = sentence;
    checkSize(n, L);
    this.#size(n, L);
    const mask = sentence.mask ?? undefined;
    const LL = L * L;
    const trans = mask?.allowed;
    if (trans !== undefined && trans.length !== LL && trans.length !== (n - 1) * LL) {
      throw new ProblemValidationError(
        "mask.allowed",
        `expected length L·L = ${LL} or (n−1)·L·L = ${(n - 1) * LL}, got ${trans.length}`,
      );
    }
    this.#transStride = trans !== undefined && trans.length !== LL ? LL : 0;
    let restricted = false;
    if (trans === undefined) this.#trans.fill(1, 0, LL);
    else {
      for (let q = 0; q < trans.length; q++) {
        const ok = trans[q] === 0 ? 0 : 1;
        this.#trans[q] = ok;
        if (ok === 0) restricted = true;
      }
    }
    this.#hasTransitions = restricted;
    copyMask(this.#start, mask?.allowedStart, L, "mask.allowedStart");
    copyMask(this.#end, mask?.allowedEnd, L, "mask.allowedEnd");
    copyMask(this.#labelOk, mask?.allowedLabels, n * L, "mask.allowedLabels");
    this.#prepare(sentence.constraints ?? []);
    return this;
  }

  /**
   * Prepares one sentence from a model's chain scores: the mask is their −∞ pattern (the
   * `allowed` mask, −∞ transitions, start and end scores, unary scores), the constraints a
   * {@link DecodeProblem}'s. Allocates nothing once the buffers fit.
   */
  resetFromScores(scores: ChainScores, constraints: readonly LinearConstraint[] = []): this {
    const { n, L, transition, start, end, unary, allowed } = scores;
    checkSize(n, L);
    this.#size(n, L);
    const LL = L * L;
    const NEG = Number.NEGATIVE_INFINITY;
    if (unary.length !== n * L) {
      throw new ProblemValidationError("scores.unary", `expected length n·L = ${n * L}`);
    }
    const specific = isPositionSpecific(scores);
    const blocks = specific ? n - 1 : 1;
    if (transition.length !== blocks * LL) {
      throw new ProblemValidationError("scores.transition", `expected length ${blocks * LL}`);
    }
    this.#transStride = specific ? LL : 0;
    let restricted = false;
    for (let q = 0; q < blocks * LL; q++) {
      const ok = transition[q] !== NEG && (allowed === undefined || allowed[q % LL] !== 0);
      this.#trans[q] = ok ? 1 : 0;
      if (!ok) restricted = true;
    }
    this.#hasTransitions = restricted;
    for (let t = 0; t < L; t++) {
      this.#start[t] = start !== undefined && start[t] === NEG ? 0 : 1;
      this.#end[t] = end !== undefined && end[t] === NEG ? 0 : 1;
    }
    for (let q = 0; q < n * L; q++) this.#labelOk[q] = unary[q] === NEG ? 0 : 1;
    this.#prepare(constraints);
    return this;
  }

  /** Starts another left-to-right pass over the same sentence (keeps the precomputation). */
  restart(): this {
    this.#partial.fill(0, 0, this.#m);
    this.#next = 0;
    this.#prev = -1;
    this.#maskFallbacks = 0;
    this.#constraintFallbacks = 0;
    this.#maskBreaks = 0;
    this.#lastFallback = "none";
    return this;
  }

  /**
   * The labels allowed at position i (which must be the next one, {@link position}) given the
   * labels committed at 0 … i−1, in increasing order, into `outAllowed`, and their soft costs
   * (≥ 0) into `outCosts` at the same places; returns how many. Both need room for L entries. At
   * least one label is always allowed: when none satisfies every hard rule, the least-violating
   * ones are, and {@link lastFallback} says so.
   */
  allowedAt(i: number, outAllowed: Int32Array, outCosts: Float64Array): number {
    this.#checkPosition(i, "allowedAt");
    const L = this.#L;
    if (outAllowed.length < L || outCosts.length < L) {
      throw new ProblemValidationError(
        "allowedAt",
        `the output arrays need room for L = ${L} labels (got ${outAllowed.length} and ${outCosts.length})`,
      );
    }
    const tol = this.#tolerance;
    const candidate = this.#candidate;
    const excess = this.#excess;
    const cost = this.#cost;
    const viable = this.#viable;
    const row = i * L;
    this.#lastFallback = "none";

    // 1. The mask: labels that follow the committed prefix and can still end validly.
    let count = 0;
    const prev = this.#prev;
    const transBase = i === 0 ? 0 : this.#transBase(i) + prev * L;
    for (let t = 0; t < L; t++) {
      const ok =
        viable[row + t] === 1 &&
        (i === 0 ? this.#start[t] === 1 : this.#trans[transBase + t] === 1);
      candidate[t] = ok ? 1 : 0;
      if (ok) count++;
    }
    if (count === 0) {
      // Only after a committed label the mask forbade: take what can still end validly.
      this.#lastFallback = "mask";
      this.#maskFallbacks++;
      for (let t = 0; t < L; t++) {
        candidate[t] = viable[row + t]!;
        count += candidate[t]!;
      }
      if (count === 0) {
        candidate.fill(1, 0, L);
        count = L;
      }
    }

    // 2. Hard constraints: the excess of each candidate over each bound, at its best completion.
    excess.fill(0, 0, L);
    cost.fill(0, 0, L);
    const rest = this.#rest;
    let anySoft = false;
    /** Excess of hard constraints with no term left: the same for every label, but reported. */
    let decided = 0;
    for (let k = 0; k < this.#m; k++) {
      if (this.#penalty[k]! >= 0) {
        anySoft = true;
        continue;
      }
      if (this.#last[k]! < i) {
        const over = this.#partial[k]! - this.#rhs[k]!;
        if (over > tol) decided += over;
        continue;
      }
      const base = this.#offset[k]! + row;
      const slack = this.#rhs[k]! - this.#partial[k]!;
      for (let t = 0; t < L; t++) {
        if (candidate[t] === 0) continue;
        const over = rest[base + t]! - slack;
        if (over > tol) excess[t]! += over;
      }
    }
    let allowedCount = 0;
    let least = Number.POSITIVE_INFINITY;
    for (let t = 0; t < L; t++) {
      if (candidate[t] === 0) continue;
      if (excess[t] === 0 && decided === 0) allowedCount++;
      if (excess[t]! < least) least = excess[t]!;
    }
    const limit = allowedCount > 0 ? 0 : least + tol;
    if (allowedCount === 0) {
      this.#lastFallback = "constraints";
      this.#constraintFallbacks++;
    }

    // 3. Soft constraints: the increase of the least achievable violation each label causes.
    if (anySoft) {
      for (let k = 0; k < this.#m; k++) {
        const p = this.#penalty[k]!;
        if (p <= 0 || this.#last[k]! < i) continue;
        const base = this.#offset[k]! + row;
        const slack = this.#rhs[k]! - this.#partial[k]!;
        let best = Number.POSITIVE_INFINITY;
        for (let t = 0; t < L; t++) {
          if (candidate[t] === 1 && rest[base + t]! < best) best = rest[base + t]!;
        }
        const before = best - slack > tol ? best - slack : 0;
        for (let t = 0; t < L; t++) {
          if (candidate[t] === 0) continue;
          const over = rest[base + t]! - slack;
          const after = over > tol ? over : 0;
          if (after > before) cost[t]! += p * (after - before);
        }
      }
    }

    let c = 0;
    for (let t = 0; t < L; t++) {
      if (candidate[t] === 0 || excess[t]! > limit) continue;
      outAllowed[c] = t;
      outCosts[c] = cost[t]!;
      c++;
    }
    return c;
  }

  /**
   * {@link allowedAt} in the form a task hands to `search.predict`: fresh arrays (the search
   * engine may keep them), `allowedCosts` only when some cost is not 0.
   */
  allowedActions(i: number): AllowedActions {
    const count = this.allowedAt(i, this.#outAllowed, this.#outCosts);
    const allowed = new Array<number>(count);
    let soft = false;
    for (let c = 0; c < count; c++) {
      allowed[c] = this.#outAllowed[c]!;
      if (this.#outCosts[c] !== 0) soft = true;
    }
    if (!soft) return { allowed };
    const allowedCosts = new Array<number>(count);
    for (let c = 0; c < count; c++) allowedCosts[c] = this.#outCosts[c]!;
    return { allowed, allowedCosts };
  }

  /**
   * Commits `label` at position i (the next one). Any label is accepted; one the mask forbids
   * there is counted in {@link maskBreaks} and later decisions recover (see {@link TrackerFallback}).
   */
  commit(i: number, label: number): void {
    this.#checkPosition(i, "commit");
    const L = this.#L;
    if (!Number.isInteger(label) || label < 0 || label >= L) {
      throw new ProblemValidationError(
        "commit",
        `expected a label id in 0..${L - 1}, got ${label}`,
      );
    }
    const ok =
      this.#labelOk[i * L + label] === 1 &&
      (i === 0
        ? this.#start[label] === 1
        : this.#trans[this.#transBase(i) + this.#prev * L + label] === 1) &&
      (i < this.#n - 1 || this.#end[label] === 1);
    if (!ok) this.#maskBreaks++;
    for (let e = this.#posStart[i]!; e < this.#posStart[i + 1]!; e++) {
      if (this.#termLabel[e] === label)
        this.#partial[this.#termConstraint[e]!]! += this.#termCoefficient[e]!;
    }
    this.#labels[i] = label;
    this.#prev = label;
    this.#next = i + 1;
  }

  /** Constraint k's activity a·y over the committed positions. */
  partialActivity(k: number): number {
    return this.#partial[k]!;
  }

  /**
   * The least violation max(0, a·y − b) of constraint k that a mask-valid completion of the
   * committed prefix can reach (exact with `followMask`, a lower bound otherwise).
   */
  minimalViolation(k: number): number {
    const i = this.#next;
    const slack = this.#rhs[k]! - this.#partial[k]!;
    let best = 0;
    if (i < this.#n && this.#last[k]! >= i) {
      const L = this.#L;
      const base = this.#offset[k]! + i * L;
      const viable = this.#viable;
      const transBase = i === 0 ? 0 : this.#transBase(i) + this.#prev * L;
      best = Number.POSITIVE_INFINITY;
      let any = false;
      for (let pass = 0; pass < 2 && !any; pass++) {
        for (let t = 0; t < L; t++) {
          const ok =
            viable[i * L + t] === 1 &&
            (pass === 1 || (i === 0 ? this.#start[t] === 1 : this.#trans[transBase + t] === 1));
          if (!ok) continue;
          any = true;
          if (this.#rest[base + t]! < best) best = this.#rest[base + t]!;
        }
      }
      if (!any) best = 0;
    }
    const over = best - slack;
    return over > this.#tolerance ? over : 0;
  }

  #transBase(i: number): number {
    return this.#transStride === 0 ? 0 : (i - 1) * this.#transStride;
  }

  #checkPosition(i: number, what: string): void {
    if (i !== this.#next || i >= this.#n) {
      throw new ProblemValidationError(
        what,
        this.#next >= this.#n
          ? `the pass is complete (n = ${this.#n}); call restart() or reset() first`
          : `positions are decided left to right: expected ${this.#next}, got ${i}`,
      );
    }
  }

  /** Grows the per-size buffers (never shrinks them). */
  #size(n: number, L: number): void {
    this.#n = n;
    this.#L = L;
    const LL = L * L;
    const need = Math.max(LL, (n - 1) * LL);
    if (this.#trans.length < need) this.#trans = new Uint8Array(grow(this.#trans.length, need));
    if (this.#start.length < L) {
      this.#start = new Uint8Array(L);
      this.#end = new Uint8Array(L);
      this.#candidate = new Uint8Array(L);
      this.#excess = new Float64Array(L);
      this.#cost = new Float64Array(L);
      this.#outAllowed = new Int32Array(L);
      this.#outCosts = new Float64Array(L);
    }
    if (this.#labelOk.length < n * L) {
      const size = grow(this.#labelOk.length, n * L);
      this.#labelOk = new Uint8Array(size);
      this.#viable = new Uint8Array(size);
    }
    if (this.#labels.length < n) {
      this.#labels = new Int32Array(grow(this.#labels.length, n));
      this.#posStart = new Int32Array(this.#labels.length + 1);
    }
  }

  /** Viability, the constraints' tables; then a fresh pass. Expects the mask buffers filled. */
  #prepare(constraints: readonly LinearConstraint[]): void {
    const n = this.#n;
    const L = this.#L;
    this.#constraints = constraints;
    this.#computeViability();
    if (!this.#maskFeasible) {
      // No labelling meets the mask: drop it for this sentence (maskFeasible reports it).
      this.#hasTransitions = false;
      this.#transStride = 0;
      this.#trans.fill(1, 0, L * L);
      this.#start.fill(1, 0, L);
      this.#end.fill(1, 0, L);
      this.#labelOk.fill(1, 0, n * L);
      this.#viable.fill(1, 0, n * L);
    }

    // Constraint tables.
    const m = constraints.length;
    this.#m = m;
    if (this.#rhs.length < m) {
      const size = grow(this.#rhs.length, m);
      this.#rhs = new Float64Array(size);
      this.#penalty = new Float64Array(size);
      this.#last = new Int32Array(size);
      this.#offset = new Int32Array(size);
      this.#partial = new Float64Array(size);
    }
    let restSize = 0;
    let terms = 0;
    for (let k = 0; k < m; k++) {
      const c = constraints[k]!;
      validateConstraint(c, n, L, `constraints[${k}]`);
      let last = -1;
      for (let e = 0; e < c.indices.length; e++) {
        const position = (c.indices[e]! / L) | 0;
        if (position > last) last = position;
      }
      this.#rhs[k] = c.rhs;
      this.#penalty[k] = c.penalty === undefined ? -1 : c.penalty;
      this.#last[k] = last;
      this.#offset[k] = restSize;
      restSize += (last + 1) * L;
      terms += c.indices.length;
    }
    if (this.#rest.length < restSize)
      this.#rest = new Float64Array(grow(this.#rest.length, restSize));
    if (this.#termConstraint.length < terms) {
      const size = grow(this.#termConstraint.length, terms);
      this.#termConstraint = new Int32Array(size);
      this.#termLabel = new Int32Array(size);
      this.#termCoefficient = new Float64Array(size);
    }

    // Terms by position: counting sort of every (constraint, index, coefficient).
    const posStart = this.#posStart;
    posStart.fill(0, 0, n + 1);
    for (const c of constraints) {
      for (let e = 0; e < c.indices.length; e++) posStart[((c.indices[e]! / L) | 0) + 1]!++;
    }
    for (let i = 0; i < n; i++) posStart[i + 1]! += posStart[i]!;
    for (let k = 0; k < m; k++) {
      const c = constraints[k]!;
      for (let e = 0; e < c.indices.length; e++) {
        const index = c.indices[e]!;
        const position = (index / L) | 0;
        const slot = posStart[position]!++;
        this.#termConstraint[slot] = k;
        this.#termLabel[slot] = index - position * L;
        this.#termCoefficient[slot] = c.coefficients[e]!;
      }
    }
    for (let i = n; i > 0; i--) posStart[i] = posStart[i - 1]!;
    posStart[0] = 0;

    // Suffix minima, and the proofs of infeasibility they give.
    this.#provablyInfeasible = !this.#maskFeasible;
    for (let k = 0; k < m; k++) {
      this.#suffixMinima(k, constraints[k]!);
      if (this.#penalty[k]! >= 0) continue;
      let best = 0;
      if (this.#last[k]! >= 0) {
        best = Number.POSITIVE_INFINITY;
        const base = this.#offset[k]!;
        for (let t = 0; t < L; t++) {
          if (this.#viable[t] === 1 && this.#start[t] === 1 && this.#rest[base + t]! < best) {
            best = this.#rest[base + t]!;
          }
        }
      }
      if (best - this.#rhs[k]! > this.#tolerance) this.#provablyInfeasible = true;
    }
    this.restart();
  }

  /** viable[i·L + t] = labelOk ∧ (i = n−1 ? end[t] : ∃ u: trans(t, u) ∧ viable[i+1][u]). */
  #computeViability(): void {
    const n = this.#n;
    const L = this.#L;
    const viable = this.#viable;
    const labelOk = this.#labelOk;
    const trans = this.#trans;
    const last = (n - 1) * L;
    for (let t = 0; t < L; t++) viable[last + t] = labelOk[last + t]! & this.#end[t]!;
    for (let i = n - 2; i >= 0; i--) {
      const row = i * L;
      const nextRow = row + L;
      const block = this.#transStride === 0 ? 0 : i * this.#transStride;
      let anyNext = 0;
      for (let u = 0; u < L; u++) anyNext |= viable[nextRow + u]!;
      for (let t = 0; t < L; t++) {
        let ok = 0;
        if (labelOk[row + t] === 1 && anyNext === 1) {
          if (!this.#hasTransitions) ok = 1;
          else {
            const from = block + t * L;
            for (let u = 0; u < L; u++) {
              if (trans[from + u] === 1 && viable[nextRow + u] === 1) {
                ok = 1;
                break;
              }
            }
          }
        }
        viable[row + t] = ok;
      }
    }
    let feasible = false;
    for (let t = 0; t < L; t++) if (viable[t] === 1 && this.#start[t] === 1) feasible = true;
    this.#maskFeasible = feasible;
  }

  /**
   * rest[i][t] = coefficient(i, t) + the least Σ of coefficients at positions i+1 … last over the
   * continuations: the mask-valid ones from t (t viable, `followMask`), else any viable label at
   * i+1 (the per-position minima; also what a label reached only by a fallback continues with).
   */
  #suffixMinima(k: number, c: LinearConstraint): void {
    const L = this.#L;
    const last = this.#last[k]!;
    if (last < 0) return;
    const rest = this.#rest;
    const base = this.#offset[k]!;
    rest.fill(0, base, base + (last + 1) * L);
    for (let e = 0; e < c.indices.length; e++) rest[base + c.indices[e]!]! += c.coefficients[e]!;
    const viable = this.#viable;
    const trans = this.#trans;
    const linked = this.#followMask && this.#hasTransitions;
    for (let i = last - 1; i >= 0; i--) {
      const row = base + i * L;
      const nextRow = row + L;
      const nextViable = (i + 1) * L;
      let free = Number.POSITIVE_INFINITY;
      for (let u = 0; u < L; u++) {
        if (viable[nextViable + u] === 1 && rest[nextRow + u]! < free) free = rest[nextRow + u]!;
      }
      const block = this.#transStride === 0 ? 0 : i * this.#transStride;
      for (let t = 0; t < L; t++) {
        let next = free;
        if (linked && viable[i * L + t] === 1) {
          next = Number.POSITIVE_INFINITY;
          const from = block + t * L;
          for (let u = 0; u < L; u++) {
            if (
              trans[from + u] === 1 &&
              viable[nextViable + u] === 1 &&
              rest[nextRow + u]! < next
            ) {
              next = rest[nextRow + u]!;
            }
          }
        }
        rest[row + t]! += next;
      }
    }
  }
}

function checkSize(n: number, L: number): void {
  if (!Number.isInteger(n) || n < 1) {
    throw new ProblemValidationError("n", `expected an integer ≥ 1, got ${n}`);
  }
  if (!Number.isInteger(L) || L < 1) {
    throw new ProblemValidationError("L", `expected an integer ≥ 1, got ${L}`);
  }
}

function copyMask(target: Uint8Array, source: Uint8Array | undefined, size: number, path: string) {
  if (source === undefined) {
    target.fill(1, 0, size);
    return;
  }
  if (source.length !== size) {
    throw new ProblemValidationError(path, `expected length ${size}, got ${source.length}`);
  }
  for (let q = 0; q < size; q++) target[q] = source[q] === 0 ? 0 : 1;
}

function grow(current: number, need: number): number {
  return Math.max(need, 2 * current);
}
