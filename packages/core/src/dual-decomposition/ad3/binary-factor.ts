/**
 * The unit the AD3 step composes (Martins et al., "AD3: Alternating Directions Dual Decomposition
 * for MAP Inference in Graphical Models", JMLR 16, 2015): a factor over binary variables.
 *
 * A factor links `size` binary variables z ∈ {0,1}^size (its local variables; the problem binds
 * them to global ones). Its configurations are the 0/1 vectors it allows; its marginal polytope is
 * their convex hull; its score is its own log-potential of a configuration. A labelling slave over
 * n positions and L labels is a factor over the n·L indicators z[j*L + t] (one-hot per position);
 * a logic factor (XOR, AtMostOne, OR, …) is a factor whose score is 0 on the configurations it
 * allows; a soft linear constraint is a factor over the box [0,1]^size with the concave score
 * −c · max(0, a·z − b).
 */
export interface BinaryFactor {
  /** Shown in errors and statistics. */
  readonly name: string;
  /** Number of binary variables it links (local variables 0..size−1). */
  readonly size: number;
  /**
   * The MAP oracle (AD3's `SolveMAP`): maximise score(z) + adjustment·z over the factor's
   * polytope; writes a maximiser to `out` (length `size`) and returns the maximum, −∞ when the
   * factor allows no configuration. The maximiser is a vertex (0/1) for a factor whose polytope is
   * the hull of its configurations; a factor over a box with a concave score (a knapsack, a soft
   * constraint) may return a fractional one — the dual bound needs the maximum over the polytope
   * the factor relaxes to, whatever that is.
   */
  map(adjustment: Float64Array, out: Float64Array): number;
  /**
   * The quadratic step (AD3's `SolveQP`): writes to `out` the q in the factor's polytope that
   * maximises  scale · score(q) + v·q − ½‖q‖²  (scale > 0; score extended linearly over the hull
   * of the configurations, or the factor's own concave extension). Absent: the master solves it
   * with the active-set method over `map` (AD3's `GenericFactor`), which then must return vertices.
   */
  project?(v: Float64Array, scale: number, out: Float64Array): void;
  /** Own score of a 0/1 configuration of its variables; −∞ when the factor forbids it. */
  score(z: ArrayLike<number>): number;
  /**
   * The closed-form family its `project` belongs to, declared so that a run projects every factor
   * of the family in one loop over its edge buffer (no call per factor); `project` stays the
   * reference the kernels are tested against.
   */
  readonly kernel?: FactorKernel;
}

/**
 * A quadratic step in closed form over flat parameters:
 * - `box`: the box cut by a·z ≤ rhs (= rhs when `equality`), negations folded into a and rhs; a
 *   finite `penalty` makes the constraint soft (score −penalty·max(0, a·z − rhs));
 * - `pair`: AD3's PAIR, `score` when both variables are on;
 * - `or-out`: the last literal is the OR of the others (literal i negated where `negated[i]`);
 * - `dense`: AD3's DENSE table over one-hot blocks (see denseFactor), its quadratic step by the
 *   active-set method over the table's configurations, compiled with the run's others.
 */
export type FactorKernel =
  | {
      readonly kind: "box";
      readonly coefficients: Float64Array;
      readonly rhs: number;
      readonly equality: boolean;
      readonly penalty: number;
    }
  | { readonly kind: "pair"; readonly score: number }
  | { readonly kind: "or-out"; readonly negated: Uint8Array }
  | { readonly kind: "dense"; readonly cardinalities: Int32Array; readonly scores: Float64Array };

/** A factor and the global variables its local ones stand for: local j is global `variables[j]`. */
export interface BinaryFactorBinding {
  readonly factor: BinaryFactor;
  /** Distinct global variable indices, `factor.size` of them. */
  readonly variables: Int32Array;
}

/**
 * max over z ∈ {0,1}^variables of  Σ_i unary[i]·z[i] + Σ_f score_f(z restricted to f's variables),
 * relaxed by the AD3 step to the local polytope (every factor's polytope, agreeing on shared
 * variables). A variable linked to no factor takes its unary's sign.
 */
export interface BinaryProblem {
  readonly variables: number;
  /** Log-potential of each variable being 1 (AD3's variable log-potentials); absent = 0. */
  readonly unary?: Float64Array;
  readonly factors: readonly BinaryFactorBinding[];
  /**
   * Groups of variables that are the states of one multi-valued variable (exactly one is 1): the
   * primal rounding takes the largest posterior of a group; other variables round at ½.
   */
  readonly oneHot?: readonly Int32Array[];
}
