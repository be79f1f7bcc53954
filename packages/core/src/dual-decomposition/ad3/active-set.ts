import type { BinaryFactor } from "./binary-factor.js";
import { carveAll } from "./typed-arena.js";

const EMPTY: Float64Array = new Float64Array(0);
const EMPTY_INT: Int32Array = new Int32Array(0);

/** Weights below this leave the active set. */
const DROP = 1e-14;
/** Added to the Gram diagonal: configurations may be affinely dependent (the KKT system singular). */
const RIDGE = 1e-12;
/**
 * A Schur complement or pivot below this (relative to the Gram's scale) means the configurations
 * are affinely dependent: the kept inverse is dropped and the ridged system solved instead.
 */
const SINGULAR = 1e-9;
/** The kept inverse is recomputed after this many updates, before rounding can build up. */
const REFRESH_AFTER = 256;

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
  /** A column of the bordered KKT matrix times its inverse (an insertion's update). */
  column: Float64Array = EMPTY;
  #size = 0;
  #width = 0;

  /**
   * Makes room for a factor of `size` variables and `capacity` configurations, at the next
   * {@link fit}: a run's solvers reserve as they are made and allocate at their first projection,
   * so a run that certifies on its MAP pass allocates nothing here.
   */
  reserve(size: number, capacity: number): void {
    this.#size = Math.max(this.#size, size);
    this.#width = Math.max(this.#width, capacity + 1);
  }

  /** Grows the buffers to what has been reserved. */
  fit(): void {
    const size = this.#size;
    const width = this.#width;
    if (this.kkt.length >= width * width && this.candidate.length >= size) return;
    const [doubles, integers] = carveAll(
      [width * width, width, width, width, size, size, size],
      [size],
      [],
    );
    [this.kkt, this.rhs, this.solution, this.column, this.candidate, this.adjustment, this.q] =
      doubles;
    [this.candidateOnes] = integers;
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
  /**
   * z_a·Wv + scale·s_a of each configuration at the current call's v: the KKT system's right-hand
   * side, fixed within a call, so a step computes it only for the configuration it adds.
   */
  #linear = EMPTY;
  /** Gram matrix of the configurations, capacity × capacity. */
  #gram = EMPTY;
  /**
   * The inverse of the bordered KKT matrix [0 1ᵀ; 1 G], (capacity + 1)², row-major at that
   * width; index 0 is the border, index a + 1 configuration a. Kept up to date through each
   * insertion and removal (Schur complements, O(k²)), so a step solves in O(k²), not O(k³):
   * on AD3's parsing graphs the elimination took 39 % of a run. Not valid (`#inverted` false)
   * while the configurations are affinely dependent; then the ridged system is eliminated.
   */
  #inverse = EMPTY;
  #inverted = false;
  /**
   * Whether the inverse may be computed whole at the next solve: not while the set that failed
   * stays as it was (adding to dependent configurations leaves them dependent), again after a
   * removal.
   */
  #invertible = true;
  /** Updates of the inverse since it was last computed whole. */
  #updates = 0;
  readonly #scratch: ActiveSetScratch;
  /** Views of `size` entries on the scratch (a factor's oracle sees its own length). */
  #candidate: Float64Array = EMPTY;
  #candidateOnes: Int32Array = EMPTY_INT;
  #adjustment: Float64Array = EMPTY;
  #q: Float64Array = EMPTY;
  #count = 0;

  /**
   * `capacity`: configurations kept (default: size + 2, at most 48; the projection is a mixture of
   * at most size + 1 of them, Carathéodory). `scratch`: buffers shared with the run's other solvers.
   * `maxSteps`: active-set steps a call takes at most (default 10, AD3's `num_max_iterations_QP_`):
   * an ADMM iteration needs no exact projection, the next one goes on from this one's active set.
   * 20 had the parsing graphs spend half their time on steps that moved little (parsing02: 35
   * iterations at 20, 37 at 10, in 0.65 of the time; the same duals on AD3's other graphs).
   */
  constructor(
    factor: BinaryFactor,
    weights?: Float64Array,
    scratch: ActiveSetScratch = new ActiveSetScratch(),
    capacity = Math.min(MAX_CAPACITY, factor.size + 2),
    maxSteps = 10,
  ) {
    const size = factor.size;
    this.#w = weights ?? new Float64Array(size).fill(1);
    this.#factor = factor;
    this.#size = size;
    this.#capacity = capacity;
    this.#maxSteps = maxSteps;
    this.#scratch = scratch;
    scratch.reserve(size, capacity);
  }

  /** Buffers on first use: most decodings certify on the MAP pass and never project. */
  #allocate(): void {
    const capacity = this.#capacity;
    const size = this.#size;
    this.#ones = Array.from({ length: capacity }, () => EMPTY_INT);
    const [doubles, integers] = carveAll(
      [capacity, capacity, capacity, capacity * capacity, (capacity + 1) * (capacity + 1)],
      [capacity],
      [],
    );
    [this.#scores, this.#weights, this.#linear, this.#gram, this.#inverse] = doubles;
    [this.#onCount] = integers;
    const scratch = this.#scratch;
    scratch.fit();
    this.#candidate = scratch.candidate.subarray(0, size);
    this.#candidateOnes = scratch.candidateOnes.subarray(0, size);
    this.#adjustment = scratch.adjustment.subarray(0, size);
    this.#q = scratch.q.subarray(0, size);
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
    for (let a = 0; a < this.#count; a++) this.#linearTerm(a, v, scale);
    for (let step = 0; step < this.#maxSteps; step++) {
      const k = this.#count;
      this.#solveKkt();
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
      // The active configurations' level, scale·s_a + z_a·W(v − q) = linear_a − (Gμ)_a: O(k²)
      // from the Gram matrix instead of a pass over each configuration's variables.
      const gram = this.#gram;
      const capacity = this.#capacity;
      let level = Number.NEGATIVE_INFINITY;
      for (let a = 0; a < k; a++) {
        let value = this.#linear[a]!;
        const row = a * capacity;
        for (let b = 0; b < k; b++) value -= gram[row + b]! * weights[b]!;
        if (value > level) level = value;
      }
      const candidate = this.#candidate;
      const best = this.#factor.map(adjustment, candidate);
      if (!(scale * best > level + 1e-12 * (1 + Math.abs(level)))) break;
      const count = this.#onesOf(candidate);
      if (this.#contains(count) || !this.#add(count, best)) break;
      this.#linearTerm(this.#count - 1, v, scale);
    }
    this.#mix(out);
  }

  /** linear_a = z_a·Wv + scale·s_a. */
  #linearTerm(a: number, v: Float64Array, scale: number): void {
    const w = this.#w;
    const ones = this.#ones[a]!;
    let dot = 0;
    const count = this.#onCount[a]!;
    for (let o = 0; o < count; o++) {
      const j = ones[o]!;
      dot += w[j]! * v[j]!;
    }
    this.#linear[a] = dot + scale * this.#scores[a]!;
  }

  /** q = Σ_a μ_a z_a. */
  #mix(out: Float64Array): void {
    out.fill(0);
    for (let a = 0; a < this.#count; a++) {
      const weight = this.#weights[a]!;
      if (weight === 0) continue;
      const ones = this.#ones[a]!;
      const count = this.#onCount[a]!;
      for (let o = 0; o < count; o++) out[ones[o]!]! += weight;
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
    this.#invertAfterInsertion(k);
    return true;
  }

  /**
   * The inverse after configuration k joined (its Gram row in place): with r = (1, G[·][k]) the
   * new column and s = G[k][k] − rᵀHr (its squared distance from the others' affine hull, the
   * Schur complement), H grows to [H + ddᵀ/s, −d/s; −dᵀ/s, 1/s], d = Hr.
   */
  #invertAfterInsertion(k: number): void {
    const capacity = this.#capacity;
    const width = capacity + 1;
    const gram = this.#gram;
    const h = this.#inverse;
    const diagonal = gram[k * capacity + k]!;
    if (k === 0) {
      // [0 1; 1 g]⁻¹ = [−g 1; 1 0].
      h[0] = -diagonal;
      h[1] = 1;
      h[width] = 1;
      h[width + 1] = 0;
      this.#inverted = true;
      this.#updates = 0;
      return;
    }
    if (!this.#inverted) return;
    const d = this.#scratch.column;
    let schur = diagonal;
    for (let i = 0; i <= k; i++) {
      const row = i * width;
      let total = h[row]!;
      for (let b = 0; b < k; b++) total += h[row + b + 1]! * gram[b * capacity + k]!;
      d[i] = total;
      schur -= (i === 0 ? 1 : gram[(i - 1) * capacity + k]!) * total;
    }
    if (!(schur > SINGULAR * Math.max(1, diagonal))) {
      this.#inverted = false;
      return;
    }
    const inv = 1 / schur;
    const m = k + 1;
    for (let i = 0; i < m; i++) {
      const di = inv * d[i]!;
      const row = i * width;
      for (let j = 0; j < m; j++) h[row + j]! += di * d[j]!;
      h[row + m] = -di;
      h[m * width + i] = -di;
    }
    h[m * width + m] = inv;
    this.#updates++;
  }

  /**
   * The inverse after configuration a left and the last took its place: the two swap (rows and
   * columns), then the last is eliminated, H′ = H₁₁ − h hᵀ / h_ll.
   */
  #invertAfterRemoval(a: number, last: number): void {
    this.#invertible = true;
    if (!this.#inverted) return;
    const width = this.#capacity + 1;
    const h = this.#inverse;
    const m = last + 2;
    const x = a + 1;
    const l = last + 1;
    if (x !== l) {
      for (let j = 0; j < m; j++) {
        const t = h[x * width + j]!;
        h[x * width + j] = h[l * width + j]!;
        h[l * width + j] = t;
      }
      for (let i = 0; i < m; i++) {
        const t = h[i * width + x]!;
        h[i * width + x] = h[i * width + l]!;
        h[i * width + l] = t;
      }
    }
    const pivot = h[l * width + l]!;
    if (!(Math.abs(pivot) > 1e-300)) {
      this.#inverted = false;
      return;
    }
    const inv = 1 / pivot;
    for (let i = 0; i < l; i++) {
      const hi = inv * h[i * width + l]!;
      if (hi === 0) continue;
      const row = i * width;
      for (let j = 0; j < l; j++) h[row + j]! -= hi * h[l * width + j]!;
    }
    this.#updates++;
  }

  /**
   * The inverse computed whole (Gauss–Jordan with partial pivoting on the bordered matrix);
   * #inverted false when the configurations are affinely dependent.
   */
  #invertWhole(): void {
    const k = this.#count;
    const capacity = this.#capacity;
    const width = capacity + 1;
    const m = k + 1;
    const a = this.#scratch.kkt;
    const h = this.#inverse;
    const gram = this.#gram;
    let scale = 1;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) {
        a[i * m + j] =
          i === 0 ? (j === 0 ? 0 : 1) : j === 0 ? 1 : gram[(i - 1) * capacity + j - 1]!;
        h[i * width + j] = i === j ? 1 : 0;
      }
      if (i > 0) scale = Math.max(scale, gram[(i - 1) * capacity + i - 1]!);
    }
    this.#updates = 0;
    this.#inverted = false;
    this.#invertible = false;
    for (let col = 0; col < m; col++) {
      let pivot = col;
      for (let row = col + 1; row < m; row++) {
        if (Math.abs(a[row * m + col]!) > Math.abs(a[pivot * m + col]!)) pivot = row;
      }
      const p = a[pivot * m + col]!;
      if (!(Math.abs(p) > SINGULAR * scale)) return;
      if (pivot !== col) {
        for (let c = 0; c < m; c++) {
          const t = a[col * m + c]!;
          a[col * m + c] = a[pivot * m + c]!;
          a[pivot * m + c] = t;
          const u = h[col * width + c]!;
          h[col * width + c] = h[pivot * width + c]!;
          h[pivot * width + c] = u;
        }
      }
      const inv = 1 / p;
      for (let c = 0; c < m; c++) {
        a[col * m + c]! *= inv;
        h[col * width + c]! *= inv;
      }
      for (let row = 0; row < m; row++) {
        if (row === col) continue;
        const f = a[row * m + col]!;
        if (f === 0) continue;
        for (let c = 0; c < m; c++) {
          a[row * m + c]! -= f * a[col * m + c]!;
          h[row * width + c]! -= f * h[col * width + c]!;
        }
      }
    }
    this.#inverted = true;
    this.#invertible = true;
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
    this.#invertAfterRemoval(a, last);
    const capacity = this.#capacity;
    const gram = this.#gram;
    if (a !== last) {
      const slot = this.#ones[a]!;
      this.#ones[a] = this.#ones[last]!;
      this.#ones[last] = slot;
      this.#onCount[a] = this.#onCount[last]!;
      this.#scores[a] = this.#scores[last]!;
      this.#weights[a] = this.#weights[last]!;
      this.#linear[a] = this.#linear[last]!;
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
   *   [0 1ᵀ; 1 G] [τ; μ] = [1; Mᵀv + scale·s]
   * into the scratch's solution (μ_a at a): by the kept inverse, or, while the configurations are
   * affinely dependent, by eliminating the ridged system (k ≤ capacity, small).
   */
  #solveKkt(): void {
    const k = this.#count;
    const rhs = this.#scratch.rhs;
    rhs[0] = 1;
    for (let a = 0; a < k; a++) rhs[a + 1] = this.#linear[a]!;
    if (this.#inverted ? this.#updates >= REFRESH_AFTER : this.#invertible) this.#invertWhole();
    const solution = this.#scratch.solution;
    if (this.#inverted) {
      const width = this.#capacity + 1;
      const h = this.#inverse;
      let total = 0;
      for (let a = 0; a < k; a++) {
        const row = (a + 1) * width;
        let x = 0;
        for (let j = 0; j <= k; j++) x += h[row + j]! * rhs[j]!;
        solution[a] = x;
        total += x;
      }
      // Σμ = 1 is one of the equations: where rounding has broken it, compute the inverse anew.
      if (Math.abs(total - 1) <= 1e-9 || this.#updates === 0) return;
      this.#invertWhole();
      if (this.#inverted) {
        for (let a = 0; a < k; a++) {
          const row = (a + 1) * width;
          let x = 0;
          for (let j = 0; j <= k; j++) x += h[row + j]! * rhs[j]!;
          solution[a] = x;
        }
        return;
      }
    }
    const capacity = this.#capacity;
    const width = k + 1;
    const kkt = this.#scratch.kkt;
    const gram = this.#gram;
    const system = this.#scratch.column;
    for (let a = 0; a < k; a++) {
      for (let b = 0; b < k; b++) kkt[a * width + b] = gram[a * capacity + b]!;
      kkt[a * width + a]! += RIDGE;
      kkt[a * width + k] = 1;
      kkt[k * width + a] = 1;
      system[a] = rhs[a + 1]!;
    }
    kkt[k * width + k] = 0;
    system[k] = 1;
    solveLinearSystem(kkt, system, solution, width);
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
