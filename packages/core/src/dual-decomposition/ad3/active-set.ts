import type { BinaryFactor } from "./binary-factor.js";

const EMPTY = new Float64Array(0);
const EMPTY_INT = new Int32Array(0);

/** Weights below this leave the active set. */
const DROP = 1e-14;
/** Added to the Gram diagonal: configurations may be affinely dependent (the KKT system singular). */
const RIDGE = 1e-12;

/**
 * The buffers one projection uses and none keeps between calls, shared by every solver of a run
 * (one projects at a time): a run over 80,000 small factors allocates them once, not per factor.
 */
export class ActiveSetScratch {
  kkt: Float64Array = EMPTY;
  rhs: Float64Array = EMPTY;
  solution: Float64Array = EMPTY;
  candidate: Float64Array = EMPTY;
  candidateOnes: Int32Array = EMPTY_INT;
  adjustment: Float64Array = EMPTY;
  q: Float64Array = EMPTY;

  /** Grows the buffers to fit a factor of `size` variables and `capacity` configurations. */
  fit(size: number, capacity: number): void {
    const width = capacity + 1;
    if (this.kkt.length < width * width) {
      this.kkt = new Float64Array(width * width);
      this.rhs = new Float64Array(width);
      this.solution = new Float64Array(width);
    }
    if (this.candidate.length < size) {
      this.candidate = new Float64Array(size);
      this.candidateOnes = new Int32Array(size);
      this.adjustment = new Float64Array(size);
      this.q = new Float64Array(size);
    }
  }
}

/** At most this many configurations are kept (a factor of fewer variables keeps size + 2). */
const MAX_CAPACITY = 48;

/**
 * The quadratic step for a factor that only has a MAP oracle — AD3's `GenericFactor` (Martins et
 * al. 2015, §6.3), an active-set method (Nocedal & Wright, Alg. 16.3) over the weights μ of the
 * factor's configurations:
 *
 *   min over μ in the simplex of  ½‖Mμ − v‖²_W − scale · s·μ,     q = Mμ,
 *
 * (W: per-variable weights, all 1 unless the master weighs its consensus),
 * where M's columns are configurations z_c (0/1 vectors) and s_c their scores. Only the
 * configurations with weight are kept; the most violated one is found by the MAP oracle,
 * argmax_c scale·s_c + z_c·W(v − q) = map(W(v − q)/scale). The active set is kept between calls:
 * consecutive AD3 iterations ask for nearby projections, so a call usually costs one MAP call to
 * confirm optimality. Buffers are allocated once, for at most `capacity` configurations.
 */
export class ActiveSetSolver {
  readonly #factor: BinaryFactor;
  readonly #size: number;
  readonly #capacity: number;
  readonly #maxSteps: number;
  /** Per-variable weights w of the norm ‖q − v‖²_w (weighted consensus); all 1 by default. */
  readonly #w: Float64Array;
  /**
   * Configuration a is the sorted list of its variables that are 1: #ones[a][0 … #onCount[a]).
   * Sparse, because a labelling slave's configuration has n ones among n·L variables: products
   * between configurations cost O(n), not O(n·L). Slots grow, never shrink, and swap on removal.
   */
  #ones: Int32Array[] = [];
  #onCount = EMPTY_INT;
  #scores = EMPTY;
  #weights = EMPTY;
  /** Gram matrix of the configurations, capacity × capacity. */
  #gram = EMPTY;
  readonly #scratch: ActiveSetScratch;
  /** Views of `size` entries on the scratch (a factor's oracle sees its own length). */
  readonly #candidate: Float64Array;
  readonly #candidateOnes: Int32Array;
  readonly #adjustment: Float64Array;
  readonly #q: Float64Array;
  #count = 0;

  /**
   * `capacity`: configurations kept (default: size + 2, at most 48; the projection is a mixture of
   * at most size + 1 of them, Carathéodory). `scratch`: buffers shared with the run's other solvers.
   */
  constructor(
    factor: BinaryFactor,
    weights?: Float64Array,
    scratch: ActiveSetScratch = new ActiveSetScratch(),
    capacity = Math.min(MAX_CAPACITY, factor.size + 2),
    maxSteps = 20,
  ) {
    const size = factor.size;
    this.#w = weights ?? new Float64Array(size).fill(1);
    this.#factor = factor;
    this.#size = size;
    this.#capacity = capacity;
    this.#maxSteps = maxSteps;
    this.#scratch = scratch;
    scratch.fit(size, capacity);
    this.#candidate = scratch.candidate.subarray(0, size);
    this.#candidateOnes = scratch.candidateOnes.subarray(0, size);
    this.#adjustment = scratch.adjustment.subarray(0, size);
    this.#q = scratch.q.subarray(0, size);
  }

  /** Buffers on first use: most decodings certify on the MAP pass and never project. */
  #allocate(): void {
    const capacity = this.#capacity;
    this.#ones = Array.from({ length: capacity }, () => new Int32Array(0));
    this.#onCount = new Int32Array(capacity);
    this.#scores = new Float64Array(capacity);
    this.#weights = new Float64Array(capacity);
    this.#gram = new Float64Array(capacity * capacity);
  }

  /** The score of the last projection, Σ_c μ_c s_c: the factor's share of the relaxed primal. */
  relaxedScore(): number {
    let total = 0;
    for (let a = 0; a < this.#count; a++) {
      const weight = this.#weights[a]!;
      if (weight > 0) total += weight * this.#scores[a]!;
    }
    return total;
  }

  /** Writes the projection of `v` to `out` (see the class comment). */
  project(v: Float64Array, scale: number, out: Float64Array): void {
    if (this.#ones.length === 0) this.#allocate();
    const size = this.#size;
    const adjustment = this.#adjustment;
    const q = this.#q;
    const w = this.#w;
    if (this.#count === 0) {
      for (let j = 0; j < size; j++) adjustment[j] = (w[j]! * v[j]!) / scale;
      if (!this.#addFromMap()) {
        out.fill(0);
        return;
      }
      this.#weights[0] = 1;
    }
    for (let step = 0; step < this.#maxSteps; step++) {
      const k = this.#count;
      this.#solveKkt(v, scale);
      const solution = this.#scratch.solution;
      let feasible = true;
      for (let a = 0; a < k; a++) if (solution[a]! < -DROP) feasible = false;
      if (!feasible) {
        // Walk from the current (feasible) weights towards the solution until a weight hits 0.
        const weights = this.#weights;
        let alpha = 1;
        for (let a = 0; a < k; a++) {
          const target = solution[a]!;
          if (target < 0) {
            const ratio = weights[a]! / (weights[a]! - target);
            if (ratio < alpha) alpha = ratio;
          }
        }
        for (let a = 0; a < k; a++) weights[a]! += alpha * (solution[a]! - weights[a]!);
        this.#dropEmpty();
        continue;
      }
      const weights = this.#weights;
      for (let a = 0; a < k; a++) weights[a] = Math.max(0, solution[a]!);
      this.#mix(q);
      // The most violated configuration: argmax scale·s_c + z_c·W(v − q); adjustment holds
      // W(v − q)/scale, what the oracle takes.
      for (let j = 0; j < size; j++) adjustment[j] = (w[j]! * (v[j]! - q[j]!)) / scale;
      let level = Number.NEGATIVE_INFINITY;
      for (let a = 0; a < k; a++) {
        const ones = this.#ones[a]!;
        let dot = 0;
        for (let o = 0; o < this.#onCount[a]!; o++) dot += adjustment[ones[o]!]!;
        const value = scale * (this.#scores[a]! + dot);
        if (value > level) level = value;
      }
      const candidate = this.#candidate;
      const best = this.#factor.map(adjustment, candidate);
      if (!(scale * best > level + 1e-12 * (1 + Math.abs(level)))) break;
      const count = this.#onesOf(candidate);
      if (this.#contains(count) || !this.#add(count, best)) break;
    }
    this.#mix(out);
  }

  /** q = Σ_a μ_a z_a. */
  #mix(out: Float64Array): void {
    out.fill(0);
    for (let a = 0; a < this.#count; a++) {
      const weight = this.#weights[a]!;
      if (weight === 0) continue;
      const ones = this.#ones[a]!;
      for (let o = 0; o < this.#onCount[a]!; o++) out[ones[o]!]! += weight;
    }
  }

  /** The candidate's variables that are 1, into #candidateOnes; returns how many. */
  #onesOf(z: Float64Array): number {
    const ones = this.#candidateOnes;
    let count = 0;
    for (let j = 0; j < z.length; j++) if (z[j]! > 0.5) ones[count++] = j;
    return count;
  }

  /** Calls the oracle at #adjustment and adds its maximiser; false when the factor allows nothing. */
  #addFromMap(): boolean {
    const candidate = this.#candidate;
    const best = this.#factor.map(this.#adjustment, candidate);
    if (best === Number.NEGATIVE_INFINITY) return false;
    return this.#add(this.#onesOf(candidate), best);
  }

  /**
   * Adds the candidate (#candidateOnes, `count` of them) with weight 0, its score from the
   * oracle's value at #adjustment; false when full of weighted ones.
   */
  #add(count: number, value: number): boolean {
    let k = this.#count;
    if (k === this.#capacity) {
      // Make room: drop the lightest configuration.
      let lightest = 0;
      for (let a = 1; a < k; a++) if (this.#weights[a]! < this.#weights[lightest]!) lightest = a;
      const spilled = this.#weights[lightest]!;
      this.#remove(lightest);
      k = this.#count;
      // Keep the weights on the simplex.
      if (spilled > 0) for (let a = 0; a < k; a++) this.#weights[a]! /= 1 - spilled;
    }
    const candidate = this.#candidateOnes;
    const adjustment = this.#adjustment;
    let dot = 0;
    for (let o = 0; o < count; o++) dot += adjustment[candidate[o]!]!;
    let slot = this.#ones[k]!;
    if (slot.length < count) {
      slot = new Int32Array(Math.max(count, 2 * slot.length));
      this.#ones[k] = slot;
    }
    slot.set(candidate.subarray(0, count));
    this.#onCount[k] = count;
    this.#scores[k] = value - dot;
    this.#weights[k] = 0;
    const capacity = this.#capacity;
    const gram = this.#gram;
    for (let a = 0; a <= k; a++) {
      const g = this.#product(a, k);
      gram[a * capacity + k] = g;
      gram[k * capacity + a] = g;
    }
    this.#count = k + 1;
    return true;
  }

  /** z_a·W·z_b: the weights of the variables both have on (sorted lists, merged). */
  #product(a: number, b: number): number {
    const x = this.#ones[a]!;
    const y = this.#ones[b]!;
    const nx = this.#onCount[a]!;
    const ny = this.#onCount[b]!;
    const w = this.#w;
    let total = 0;
    let i = 0;
    let j = 0;
    while (i < nx && j < ny) {
      const xi = x[i]!;
      const yj = y[j]!;
      if (xi === yj) {
        total += w[xi]!;
        i++;
        j++;
      } else if (xi < yj) i++;
      else j++;
    }
    return total;
  }

  #contains(count: number): boolean {
    const candidate = this.#candidateOnes;
    for (let a = 0; a < this.#count; a++) {
      if (this.#onCount[a] !== count) continue;
      const ones = this.#ones[a]!;
      let same = true;
      for (let o = 0; o < count && same; o++) same = ones[o] === candidate[o];
      if (same) return true;
    }
    return false;
  }

  #dropEmpty(): void {
    for (let a = this.#count - 1; a >= 0; a--) {
      if (this.#weights[a]! <= DROP && this.#count > 1) this.#remove(a);
    }
    let total = 0;
    for (let a = 0; a < this.#count; a++) total += this.#weights[a]!;
    if (total > 0) for (let a = 0; a < this.#count; a++) this.#weights[a]! /= total;
  }

  /** Removes configuration a, moving the last one into its place (their slots swap). */
  #remove(a: number): void {
    const last = this.#count - 1;
    const capacity = this.#capacity;
    const gram = this.#gram;
    if (a !== last) {
      const slot = this.#ones[a]!;
      this.#ones[a] = this.#ones[last]!;
      this.#ones[last] = slot;
      this.#onCount[a] = this.#onCount[last]!;
      this.#scores[a] = this.#scores[last]!;
      this.#weights[a] = this.#weights[last]!;
      for (let b = 0; b < last; b++) {
        const g = b === a ? gram[last * capacity + last]! : gram[b * capacity + last]!;
        gram[b * capacity + a] = g;
        gram[a * capacity + b] = g;
      }
    }
    this.#count = last;
  }

  /**
   * Solves the equality-constrained QP on the active set through its KKT system
   *   [G 1; 1ᵀ 0] [μ; τ] = [Mᵀv + scale·s; 1]
   * (k ≤ capacity, small).
   */
  #solveKkt(v: Float64Array, scale: number): void {
    const k = this.#count;
    const capacity = this.#capacity;
    const width = k + 1;
    const kkt = this.#scratch.kkt;
    const rhs = this.#scratch.rhs;
    const gram = this.#gram;
    const w = this.#w;
    for (let a = 0; a < k; a++) {
      for (let b = 0; b < k; b++) kkt[a * width + b] = gram[a * capacity + b]!;
      kkt[a * width + a]! += RIDGE;
      kkt[a * width + k] = 1;
      kkt[k * width + a] = 1;
      let dot = 0;
      const ones = this.#ones[a]!;
      for (let o = 0; o < this.#onCount[a]!; o++) {
        const j = ones[o]!;
        dot += w[j]! * v[j]!;
      }
      rhs[a] = dot + scale * this.#scores[a]!;
    }
    kkt[k * width + k] = 0;
    rhs[k] = 1;
    solveLinearSystem(kkt, rhs, this.#scratch.solution, width);
  }
}

/**
 * Solves the width × width system in `matrix` (row-major, overwritten) with right-hand side `rhs`
 * (overwritten) into x, by Gaussian elimination with partial pivoting: the active-set methods'
 * KKT systems, a few configurations wide. A zero pivot (dependent configurations despite the
 * ridge) leaves its unknown at 0.
 */
export function solveLinearSystem(
  matrix: Float64Array,
  rhs: Float64Array,
  x: Float64Array,
  width: number,
): void {
  for (let col = 0; col < width; col++) {
    let pivot = col;
    for (let row = col + 1; row < width; row++) {
      if (Math.abs(matrix[row * width + col]!) > Math.abs(matrix[pivot * width + col]!)) {
        pivot = row;
      }
    }
    if (pivot !== col) {
      for (let c = 0; c < width; c++) {
        const t = matrix[col * width + c]!;
        matrix[col * width + c] = matrix[pivot * width + c]!;
        matrix[pivot * width + c] = t;
      }
      const t = rhs[col]!;
      rhs[col] = rhs[pivot]!;
      rhs[pivot] = t;
    }
    const diagonal = matrix[col * width + col]!;
    if (Math.abs(diagonal) < 1e-300) continue;
    for (let row = col + 1; row < width; row++) {
      const f = matrix[row * width + col]! / diagonal;
      if (f === 0) continue;
      for (let c = col; c < width; c++) matrix[row * width + c]! -= f * matrix[col * width + c]!;
      rhs[row]! -= f * rhs[col]!;
    }
  }
  for (let row = width - 1; row >= 0; row--) {
    let total = rhs[row]!;
    for (let c = row + 1; c < width; c++) total -= matrix[row * width + c]! * x[c]!;
    const diagonal = matrix[row * width + row]!;
    x[row] = Math.abs(diagonal) < 1e-300 ? 0 : total / diagonal;
  }
}
