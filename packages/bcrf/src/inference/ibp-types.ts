export interface IbpOptions {
  /** Half-steps (Algorithm 1's iterations k); the cap when a tolerance is given. Default 10. */
  readonly iterations?: number;
  /**
   * Stop early once the iterate entering a half-step violates none of the marginal constraints
   * (Σ_in = 1 at a cluster, in = out at a node) by more than this. Default 0: run all iterations.
   */
  readonly tolerance?: number;
  /** τ: the projection of exp(w/τ); 1 for training, 0.1 (τ⁻¹ = 10, the paper's) for decoding. */
  readonly temperature?: number;
  /**
   * Called after every half-step with its number and the largest constraint violation of the
   * iterate it started from (+∞ until both sides of every cluster were projected once).
   */
  readonly onIteration?: (iteration: number, violation: number) => void;
}

export type IbpStatus = "converged" | "iteration-limit" | "infeasible";

export interface IbpResult {
  readonly status: IbpStatus;
  /** Half-steps run. */
  readonly iterations: number;
  /** Largest constraint violation last measured (+∞ when never measured, 0 for n ≤ 2). */
  readonly violation: number;
}
