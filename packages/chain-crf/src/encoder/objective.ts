/**
 * The training objective as a plug-in: the CRF's negative log-likelihood is built in; another
 * structured loss over the same features (corro's Bregman CRF Fenchel–Young loss, mean field's
 * unrolled cross-entropy) implements {@link SequenceObjective}, and the encoder, the trainers, the
 * worker pool and the model files serve it unchanged: the objective sees one sentence's scores,
 * returns its loss and the loss's gradient with respect to those scores, and the encoder pulls
 * that gradient back onto the feature weights.
 */

/**
 * One sequence's scores in the flat layout structured losses and kernels read. Arrays are read
 * from a base offset, so a caller running many sequences rewrites one object's fields and points
 * them into buffers it already has.
 *
 * Score of a labelling y: Σ_i local[localBase + i·L + y_i] + Σ_{i=1}^{n−1} trans(i, y_{i−1}, y_i),
 * trans(i, a, b) = transition[transitionBase + (i−1)·transitionStride + a·L + b]. A local score of
 * −∞ forbids a label at a position (start/end masks), `allowed[a·L + b] = 0` (or a transition
 * score of −∞) a label pair.
 */
export interface ChainInput {
  n: number;
  L: number;
  local: Float64Array;
  localBase: number;
  transition: Float64Array;
  transitionBase: number;
  /** 0 when one L×L block serves every position, L·L for position-specific blocks. */
  transitionStride: number;
  allowed: Uint8Array | null;
}

const EMPTY = new Float64Array(0);

export function emptyChainInput(): ChainInput {
  return {
    n: 0,
    L: 0,
    local: EMPTY,
    localBase: 0,
    transition: EMPTY,
    transitionBase: 0,
    transitionStride: 0,
    allowed: null,
  };
}

/**
 * Where a loss adds its gradient: ∂loss/∂local (n·L rows, from 0), Σ_i ∂loss/∂trans(i) (L·L)
 * and, when not null, ∂loss/∂trans(i) per position ((n−1)·L·L, block i−1 for the pair (i−1, i)).
 */
export interface ChainGradient {
  rows: Float64Array;
  pairwise: Float64Array;
  perPosition: Float64Array | null;
}

/** How a worker thread rebuilds an objective: a module, its export `(options) => objective`. */
export interface ObjectiveSource {
  /** Absolute URL (file:…) of the module. */
  readonly module: string;
  readonly exportName: string;
  /** Structured-clonable options passed to the export. */
  readonly options: unknown;
}

/**
 * A structured loss over one sentence. Instances are not shared between threads: each encoder
 * (and each worker's restored encoder) owns one, so it may keep scratch buffers.
 */
export interface SequenceObjective {
  /** Stored in the model file's settings (`objective`) and shown in reports: "bcrf", … */
  readonly name: string;
  /** Whether it trains on partially labelled sentences (unknown labels, label sets). */
  readonly partialLabels: boolean;
  /** For worker threads; without it the trainers stay on one thread. */
  readonly source?: ObjectiveSource;
  /**
   * The loss of one sentence whose gold label at position i is `gold[goldBase + i]` (−1 when
   * unknown; then, when `labelMask` is not null, `labelMask[i·L + t] = 1` marks the labels the
   * annotation allows there, all of them otherwise). When `gradient` is not null, ADDS the
   * loss's gradient with respect to the input's local and transition scores to it.
   */
  loss(
    input: ChainInput,
    gold: Int32Array,
    goldBase: number,
    labelMask: Uint8Array | null,
    gradient: ChainGradient | null,
  ): number;
}
