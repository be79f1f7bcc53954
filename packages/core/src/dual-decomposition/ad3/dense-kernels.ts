/**
 * The DENSE factors, compiled: every joint configuration's states laid out flat once per layout
 * (DenseTables), and per run the quadratic step by the active-set method over configurations (as
 * the generic solver, Martins et al. 2015 §6.3) but without a call to the factor's oracle: the
 * most violated configuration is an enumeration over the table, z_a·z_b counts the blocks where
 * two configurations agree, and the active sets live in pooled arrays (DenseKernels). The MAP and
 * a configuration's score come from the same tables.
 */

import { solveLinearSystem } from "./active-set.js";
import { projectPair } from "./dense-factors.js";
import { carve, carveAll } from "./typed-arena.js";

/** Tables of more configurations than this stay with the generic solver. */
export const MAX_DENSE_CONFIGURATIONS = 256;
const MAX_ACTIVE = 48;
const MAX_STEPS = 20;
/** Weights below this leave the active set. */
const DROP = 1e-14;
/** Added to the Gram diagonal: configurations may be affinely dependent. */
const RIDGE = 1e-12;

export interface DenseTable {
  /** The factor's first edge, its blocks' cardinalities, its scores. */
  readonly at: number;
  readonly cardinalities: Int32Array;
  readonly scores: Float64Array;
}

/**
 * The DENSE factors of a layout, compiled once: per factor its blocks (one per variable of the
 * table, its edges in order) and configurations, every configuration's score and state in each
 * block, the last block varying fastest (AD3's order, as denseFactor reads its table). Read-only:
 * each run's {@link DenseKernels} keeps its own active sets over these tables.
 */
export class DenseTables {
  /** Per dense factor d: first block, first configuration, first state, first active-set slot. */
  readonly blockStart: Int32Array;
  readonly configStart: Int32Array;
  readonly stateStart: Int32Array;
  readonly activeStart: Int32Array;
  /** Per factor: configurations its active set may hold; 1 for a table over two binary variables. */
  readonly capacity: Int32Array;
  readonly binaryPair: Uint8Array;
  /** Per block: its first edge, its state's stride in the table's index, its cardinality. */
  readonly blockOffset: Int32Array;
  readonly stride: Int32Array;
  readonly blockCardinality: Int32Array;
  /** Per configuration: its score, and its state in each block (blocks of its factor in order). */
  readonly score: Float64Array;
  readonly state: Int32Array;
  /** The largest factor's edges, blocks and capacity (a run's scratch). */
  readonly maxSize: number;
  readonly maxBlocks: number;
  readonly maxCapacity: number;

  constructor(tables: readonly DenseTable[]) {
    const D = tables.length;
    const [blockStart, configStart, stateStart, activeStart, capacity] = carve(Int32Array, [
      D + 1,
      D + 1,
      D + 1,
      D + 1,
      D,
    ]);
    const [binaryPair] = carve(Uint8Array, [D]);
    let maxCapacity = 1;
    let maxSize = 1;
    let maxBlocks = 1;
    tables.forEach((t, d) => {
      const B = t.cardinalities.length;
      const K = t.scores.length;
      let size = 0;
      for (let j = 0; j < B; j++) size += t.cardinalities[j]!;
      maxSize = Math.max(maxSize, size);
      maxBlocks = Math.max(maxBlocks, B);
      blockStart[d + 1] = blockStart[d]! + B;
      configStart[d + 1] = configStart[d]! + K;
      stateStart[d + 1] = stateStart[d]! + K * B;
      // The projection mixes at most size + 1 configurations (Carathéodory).
      const slots = Math.min(K, size + 2, MAX_ACTIVE);
      capacity[d] = slots;
      const [c0, c1] = t.cardinalities;
      binaryPair[d] = B === 2 && c0 === 2 && c1 === 2 ? 1 : 0;
      activeStart[d + 1] = activeStart[d]! + slots;
      maxCapacity = Math.max(maxCapacity, slots);
    });
    const blocks = blockStart[D]!;
    const [blockOffset, stride, blockCardinality, odometer, state] = carve(Int32Array, [
      blocks,
      blocks,
      blocks,
      maxBlocks,
      stateStart[D]!,
    ]);
    const [score] = carve(Float64Array, [configStart[D]!]);
    tables.forEach((t, d) => {
      const B = t.cardinalities.length;
      const b0 = blockStart[d]!;
      let offset = 0;
      for (let j = 0; j < B; j++) {
        blockOffset[b0 + j] = t.at + offset;
        blockCardinality[b0 + j] = t.cardinalities[j]!;
        offset += t.cardinalities[j]!;
      }
      let step = 1;
      for (let j = B - 1; j >= 0; j--) {
        stride[b0 + j] = step;
        step *= t.cardinalities[j]!;
      }
      score.set(t.scores, configStart[d]!);
      odometer.fill(0);
      let at = stateStart[d]!;
      for (let c = 0; c < t.scores.length; c++) {
        for (let j = 0; j < B; j++) state[at++] = odometer[j]!;
        for (let j = B - 1; j >= 0; j--) {
          if (++odometer[j]! < t.cardinalities[j]!) break;
          odometer[j] = 0;
        }
      }
    });
    this.blockStart = blockStart;
    this.configStart = configStart;
    this.stateStart = stateStart;
    this.activeStart = activeStart;
    this.capacity = capacity;
    this.binaryPair = binaryPair;
    this.blockOffset = blockOffset;
    this.stride = stride;
    this.blockCardinality = blockCardinality;
    this.score = score;
    this.state = state;
    this.maxSize = maxSize;
    this.maxBlocks = maxBlocks;
    this.maxCapacity = maxCapacity;
  }
}

/** Configurations within this (relative) of a factor's best tie with it for a seed's spread. */
const TIE_TOLERANCE = 1e-12;

/**
 * One run's kernels over a layout's {@link DenseTables}: the active sets (pooled, a slot per
 * factor) and the scratch of the projection, MAP and scoring.
 */
export class DenseKernels {
  /** The tables' arrays, held here as the kernels read them (see DenseTables). */
  readonly #blockStart: Int32Array;
  readonly #configStart: Int32Array;
  readonly #blockOffset: Int32Array;
  readonly #stride: Int32Array;
  readonly #score: Float64Array;
  readonly #state: Int32Array;
  readonly #stateStart: Int32Array;
  readonly #activeStart: Int32Array;
  readonly #capacity: Int32Array;
  readonly #binaryPair: Uint8Array;
  readonly #blockCardinality: Int32Array;
  /** Active sets: per factor d its count, in its slot the configurations and their weights. */
  readonly #count: Int32Array;
  readonly #active: Int32Array;
  readonly #weight: Float64Array;
  readonly #kkt: Float64Array;
  readonly #rhs: Float64Array;
  readonly #solution: Float64Array;
  /** The projection's scale (score weight), set before a call: a double argument is boxed. */
  readonly scale: Float64Array = new Float64Array(1);
  /** The last {@link map}'s maximum. */
  readonly result: Float64Array = new Float64Array(1);
  readonly #pairIn = new Float64Array(2);
  readonly #pairOut = new Float64Array(2);
  readonly #pairWeight = new Float64Array(1);
  /** v − q on the factor's edges (from its first), what a configuration's value sums. */
  readonly #difference: Float64Array;
  /** The enumeration's state per block and running sums of the differences (see #best). */
  readonly #odometer: Int32Array;
  readonly #partial: Float64Array;
  /** The last #best's value. */
  readonly #top = new Float64Array(1);

  constructor(tables: DenseTables) {
    this.#blockStart = tables.blockStart;
    this.#configStart = tables.configStart;
    this.#blockOffset = tables.blockOffset;
    this.#stride = tables.stride;
    this.#score = tables.score;
    this.#state = tables.state;
    this.#stateStart = tables.stateStart;
    this.#activeStart = tables.activeStart;
    this.#capacity = tables.capacity;
    this.#binaryPair = tables.binaryPair;
    this.#blockCardinality = tables.blockCardinality;
    const D = tables.capacity.length;
    const slots = tables.activeStart[D]!;
    const width = tables.maxCapacity + 1;
    const [doubles, integers] = carveAll(
      [tables.maxSize, tables.maxBlocks + 1, slots, width * width, width, width],
      [D, slots, tables.maxBlocks],
      [],
    );
    [this.#difference, this.#partial, this.#weight, this.#kkt, this.#rhs, this.#solution] = doubles;
    [this.#count, this.#active, this.#odometer] = integers;
  }

  /**
   * z_c·x over the factor's edges: the sum of x at each block's state (x indexed by edge less
   * `first`: 0 for the run's buffers, the factor's first edge for #difference).
   */
  #dot(d: number, c: number, x: Float64Array, first: number): number {
    const b0 = this.#blockStart[d]!;
    const B = this.#blockStart[d + 1]! - b0;
    const s0 = this.#stateStart[d]! + (c - this.#configStart[d]!) * B;
    let total = 0;
    for (let j = 0; j < B; j++) {
      total += x[this.#blockOffset[b0 + j]! - first + this.#state[s0 + j]!]!;
    }
    return total;
  }

  /** z_a·z_b: the blocks where configurations a and b agree. */
  #overlap(d: number, a: number, b: number): number {
    const B = this.#blockStart[d + 1]! - this.#blockStart[d]!;
    const c0 = this.#configStart[d]!;
    const sa = this.#stateStart[d]! + (a - c0) * B;
    const sb = this.#stateStart[d]! + (b - c0) * B;
    let same = 0;
    for (let j = 0; j < B; j++) if (this.#state[sa + j] === this.#state[sb + j]) same++;
    return same;
  }

  /** q = Σ_a μ_a z_a over dense factor d's edges [at, at + size). */
  #mix(d: number, q: Float64Array, at: number, size: number): void {
    for (let e = at; e < at + size; e++) q[e] = 0;
    const b0 = this.#blockStart[d]!;
    const B = this.#blockStart[d + 1]! - b0;
    const c0 = this.#configStart[d]!;
    const slot = this.#activeStart[d]!;
    const count = this.#count[d]!;
    for (let k = 0; k < count; k++) {
      const w = this.#weight[slot + k]!;
      if (w === 0) continue;
      const s0 = this.#stateStart[d]! + (this.#active[slot + k]! - c0) * B;
      for (let j = 0; j < B; j++) q[this.#blockOffset[b0 + j]! + this.#state[s0 + j]!]! += w;
    }
  }

  /**
   * The quadratic step of dense factor d (edges [at, at + size)): the q in its marginal polytope
   * maximising scale·score(q) + v·q − ½‖q‖², warm-started from its last active set, into q.
   */
  project(d: number, v: Float64Array, q: Float64Array, at: number, size: number): void {
    if (this.#binaryPair[d] === 1) {
      this.#projectBinaryPair(d, v, q, at);
      return;
    }
    const scale = this.scale[0]!;
    const slot = this.#activeStart[d]!;
    const capacity = this.#capacity[d]!;
    const c0 = this.#configStart[d]!;
    const K = this.#configStart[d + 1]! - c0;
    const active = this.#active;
    const weight = this.#weight;
    if (this.#count[d] === 0) {
      this.#differences(v, null, at, size);
      active[slot] = this.#best(d, scale);
      weight[slot] = 1;
      this.#count[d] = 1;
    }
    for (let step = 0; step < MAX_STEPS; step++) {
      const k = this.#count[d]!;
      this.#solve(d, v, scale);
      const x = this.#solution;
      let feasible = true;
      for (let a = 0; a < k; a++) if (x[a]! < -DROP) feasible = false;
      if (!feasible) {
        // Walk from the current (feasible) weights towards the solution until one hits 0.
        let alpha = 1;
        for (let a = 0; a < k; a++) {
          const target = x[a]!;
          if (target < 0) alpha = Math.min(alpha, weight[slot + a]! / (weight[slot + a]! - target));
        }
        for (let a = 0; a < k; a++) weight[slot + a]! += alpha * (x[a]! - weight[slot + a]!);
        this.#dropEmpty(d);
        continue;
      }
      for (let a = 0; a < k; a++) weight[slot + a] = Math.max(0, x[a]!);
      this.#mix(d, q, at, size);
      // The most violated configuration: argmax scale·s_c + z_c·(v − q).
      this.#differences(v, q, at, size);
      const difference = this.#difference;
      const first = this.#blockOffset[this.#blockStart[d]!]!;
      let level = Number.NEGATIVE_INFINITY;
      for (let a = 0; a < k; a++) {
        const c = active[slot + a]!;
        level = Math.max(level, scale * this.#score[c]! + this.#dot(d, c, difference, first));
      }
      const c = this.#best(d, scale);
      const value = this.#top[0]!;
      if (!(value > level + 1e-12 * (1 + Math.abs(level)))) return;
      let known = false;
      for (let a = 0; a < k; a++) if (active[slot + a] === c) known = true;
      if (known || K === k) return;
      if (k === capacity) {
        // Make room: drop the lightest, keeping the weights on the simplex.
        let lightest = 0;
        for (let a = 1; a < k; a++) if (weight[slot + a]! < weight[slot + lightest]!) lightest = a;
        const spilled = weight[slot + lightest]!;
        this.#remove(d, lightest);
        if (spilled > 0) {
          for (let a = 0; a < k - 1; a++) weight[slot + a]! /= 1 - spilled;
        }
      }
      const n = this.#count[d]!;
      active[slot + n] = c;
      weight[slot + n] = 0;
      this.#count[d] = n + 1;
    }
    this.#mix(d, q, at, size);
  }

  /**
   * A table over two binary variables x, y (indicators x0 x1 y0 y1) in closed form: its polytope
   * is q = (1 − a, a, 1 − b, b) with the joint mass m on both-on, and the objective reduces to
   * AD3's PAIR on (a, b) — −(a − a′)² − (b − b′)² + w·ext(a, b), a′ = (1 − v_x0 + v_x1 + scale·α)/2
   * with α = s10 − s00 (β likewise for y), w = scale·(s00 − s01 − s10 + s11), ext = min(a, b) for
   * w ≥ 0 and max(0, a + b − 1) otherwise — which is PAIR's step at half the weight.
   */
  #projectBinaryPair(d: number, v: Float64Array, q: Float64Array, at: number): void {
    const scale = this.scale[0]!;
    const c = this.#configStart[d]!;
    const s00 = this.#score[c]!;
    const s01 = this.#score[c + 1]!;
    const s10 = this.#score[c + 2]!;
    const s11 = this.#score[c + 3]!;
    this.#pairIn[0] = 0.5 * (1 - v[at]! + v[at + 1]! + scale * (s10 - s00));
    this.#pairIn[1] = 0.5 * (1 - v[at + 2]! + v[at + 3]! + scale * (s01 - s00));
    this.#pairWeight[0] = 0.5 * scale * (s00 - s01 - s10 + s11);
    projectPair(this.#pairIn, this.#pairOut, 0, this.#pairWeight);
    const a = this.#pairOut[0]!;
    const b = this.#pairOut[1]!;
    q[at] = 1 - a;
    q[at + 1] = a;
    q[at + 2] = 1 - b;
    q[at + 3] = b;
  }

  /** #difference = v − q on dense factor d's edges [at, at + size) (q null: 0). */
  #differences(v: Float64Array, q: Float64Array | null, at: number, size: number): void {
    const difference = this.#difference;
    if (q === null) for (let e = 0; e < size; e++) difference[e] = v[at + e]!;
    else for (let e = 0; e < size; e++) difference[e] = v[at + e]! - q[at + e]!;
  }

  /**
   * argmax_c scale·s_c + z_c·#difference over the table, a configuration index; its value into
   * #top. The configurations are enumerated in the table's order (the last block fastest) with
   * running sums per block, so each costs about one addition instead of a pass over its blocks:
   * on Family2Dominant this search was a third of a run.
   */
  #best(d: number, scale: number): number {
    const b0 = this.#blockStart[d]!;
    const B = this.#blockStart[d + 1]! - b0;
    const c0 = this.#configStart[d]!;
    const K = this.#configStart[d + 1]! - c0;
    const first = this.#blockOffset[b0]!;
    const difference = this.#difference;
    const odometer = this.#odometer;
    const partial = this.#partial;
    const offset = this.#blockOffset;
    const cardinality = this.#blockCardinality;
    const score = this.#score;
    partial[0] = 0;
    for (let j = 0; j < B; j++) {
      odometer[j] = 0;
      partial[j + 1] = partial[j]! + difference[offset[b0 + j]! - first]!;
    }
    let best = c0;
    let top = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < K; c++) {
      const value = scale * score[c0 + c]! + partial[B]!;
      if (value > top) {
        top = value;
        best = c0 + c;
      }
      let j = B - 1;
      while (j >= 0) {
        const next = odometer[j]! + 1;
        if (next < cardinality[b0 + j]!) {
          odometer[j] = next;
          break;
        }
        odometer[j] = 0;
        j--;
      }
      if (j < 0) break;
      for (let i = j; i < B; i++) {
        partial[i + 1] = partial[i]! + difference[offset[b0 + i]! - first + odometer[i]!]!;
      }
    }
    this.#top[0] = top;
    return best;
  }

  #remove(d: number, a: number): void {
    const slot = this.#activeStart[d]!;
    const last = this.#count[d]! - 1;
    this.#active[slot + a] = this.#active[slot + last]!;
    this.#weight[slot + a] = this.#weight[slot + last]!;
    this.#count[d] = last;
  }

  #dropEmpty(d: number): void {
    const slot = this.#activeStart[d]!;
    for (let a = this.#count[d]! - 1; a >= 0; a--) {
      if (this.#weight[slot + a]! <= DROP && this.#count[d]! > 1) this.#remove(d, a);
    }
    let total = 0;
    const count = this.#count[d]!;
    for (let a = 0; a < count; a++) total += this.#weight[slot + a]!;
    if (total > 0) for (let a = 0; a < count; a++) this.#weight[slot + a]! /= total;
  }

  /**
   * The equality-constrained QP on the active set through its KKT system
   *   [G 1; 1ᵀ 0] [μ; τ] = [Mᵀv + scale·s; 1]
   * into #solution.
   */
  #solve(d: number, v: Float64Array, scale: number): void {
    const k = this.#count[d]!;
    const slot = this.#activeStart[d]!;
    const width = k + 1;
    const kkt = this.#kkt;
    const rhs = this.#rhs;
    for (let a = 0; a < k; a++) {
      const ca = this.#active[slot + a]!;
      for (let b = a; b < k; b++) {
        const g = this.#overlap(d, ca, this.#active[slot + b]!);
        kkt[a * width + b] = g;
        kkt[b * width + a] = g;
      }
      kkt[a * width + a]! += RIDGE;
      kkt[a * width + k] = 1;
      kkt[k * width + a] = 1;
      rhs[a] = this.#dot(d, ca, v, 0) + scale * this.#score[ca]!;
    }
    kkt[k * width + k] = 0;
    rhs[k] = 1;
    solveLinearSystem(kkt, rhs, this.#solution, width);
  }

  /** The MAP of dense factor d at adj (its edges from `at`): the best configuration into out. */
  map(d: number, adj: Float64Array, out: Float64Array, at: number, size: number): void {
    this.#differences(adj, null, at, size);
    const c = this.#best(d, 1);
    for (let e = at; e < at + size; e++) out[e] = 0;
    const b0 = this.#blockStart[d]!;
    const B = this.#blockStart[d + 1]! - b0;
    const s0 = this.#stateStart[d]! + (c - this.#configStart[d]!) * B;
    for (let j = 0; j < B; j++) out[this.#blockOffset[b0 + j]! + this.#state[s0 + j]!] = 1;
    this.result[0] = this.#top[0]!;
  }

  /**
   * After {@link map} at the same adj: where other configurations tie the best (within 1e-12,
   * relative), out becomes the mean of the tied ones' indicators, a point of the optimal face.
   * Returns whether it did. (Only for a seed: one more pass over the table.)
   */
  spreadTies(d: number, adj: Float64Array, out: Float64Array, at: number, size: number): boolean {
    const b0 = this.#blockStart[d]!;
    const B = this.#blockStart[d + 1]! - b0;
    const c0 = this.#configStart[d]!;
    const K = this.#configStart[d + 1]! - c0;
    const top = this.result[0]!;
    // (No configuration: the run is infeasible, its seed unused.)
    if (top === Number.NEGATIVE_INFINITY) return false;
    const level = top - TIE_TOLERANCE * (1 + Math.abs(top));
    const offset = this.#blockOffset;
    const state = this.#state;
    const s0 = this.#stateStart[d]!;
    let tied = 0;
    for (let c = 0; c < K; c++) {
      let value = this.#score[c0 + c]!;
      for (let j = 0; j < B; j++) value += adj[offset[b0 + j]! + state[s0 + c * B + j]!]!;
      if (!(value >= level)) continue;
      if (tied === 0) for (let e = at; e < at + size; e++) out[e] = 0;
      tied++;
      for (let j = 0; j < B; j++) out[offset[b0 + j]! + state[s0 + c * B + j]!]! += 1;
    }
    // (One tie is the maximiser itself, its indicators rebuilt as they were.)
    if (tied <= 1) return false;
    for (let e = at; e < at + size; e++) out[e]! /= tied;
    return true;
  }

  /**
   * The score of dense factor d under a 0/1 assignment of the run's variables (edge e's variable
   * is edgeVariable[e]) into result[0]: −∞ unless each block has exactly one state on.
   */
  score(d: number, assignment: Uint8Array, edgeVariable: Int32Array): void {
    const b0 = this.#blockStart[d]!;
    const B = this.#blockStart[d + 1]! - b0;
    const c0 = this.#configStart[d]!;
    let index = 0;
    for (let j = 0; j < B; j++) {
      const from = this.#blockOffset[b0 + j]!;
      const to = from + this.#blockCardinality[b0 + j]!;
      let chosen = -1;
      for (let e = from; e < to; e++) {
        if (assignment[edgeVariable[e]!] !== 1) continue;
        if (chosen >= 0) {
          this.result[0] = Number.NEGATIVE_INFINITY;
          return;
        }
        chosen = e - from;
      }
      if (chosen < 0) {
        this.result[0] = Number.NEGATIVE_INFINITY;
        return;
      }
      index += chosen * this.#stride[b0 + j]!;
    }
    this.result[0] = this.#score[c0 + index]!;
  }
}
