import { LagrangeError } from "@lagrange/core";

/**
 * Per-label weights in the training loss (scikit-learn's `class_weight`): explicit weights by
 * label name, `balanced` ones from the label frequencies, or both (an explicit weight wins).
 */
export interface ClassWeights {
  /**
   * Weights w_y = min(10, (N / (K · n_y))^power) from the gold label counts n_y of the training
   * tokens (N tokens with a known label, K labels that occur): scikit-learn's `balanced` at power
   * 1, capped at {@link BALANCED_CAP}; a power below 1 (e.g. 0.5) smooths it. `true`: power 1.
   */
  readonly balanced?: boolean | number;
  /** Weights by label name (finite, > 0); they override the balanced ones. */
  readonly labels?: { readonly [label: string]: number };
}

/** The largest weight `balanced` gives a label. */
export const BALANCED_CAP = 10;

/**
 * The largest explicit weight (and its inverse the smallest): a label weighed a million times
 * another already decides every update, and far larger ones drive the trained weights past what
 * a model file may hold (MAX_WEIGHT_MAGNITUDE).
 */
export const MAX_CLASS_WEIGHT = 1e6;

/** Whether `w` is an explicit class weight training accepts. */
export function isClassWeight(w: number): boolean {
  return w >= 1 / MAX_CLASS_WEIGHT && w <= MAX_CLASS_WEIGHT;
}

/**
 * The weight of every label id (length `labelNames.length`): 1 unless `spec` says otherwise.
 * A label name `spec` gives that the model does not know, a weight that is not finite and
 * positive, or a balanced power outside (0, 4] is a usage error naming it.
 */
export function resolveClassWeights(
  spec: ClassWeights,
  labelNames: readonly string[],
  gold: Int32Array,
): Float64Array {
  const L = labelNames.length;
  const weights = new Float64Array(L).fill(1);
  const balanced = spec.balanced;
  if (balanced !== undefined && balanced !== false) {
    const power = balanced === true ? 1 : balanced;
    if (!(power > 0 && power <= 4)) {
      throw new LagrangeError(
        "usage",
        `class weights: balanced power ${power}: expected a number in (0, 4]`,
      );
    }
    const counts = new Float64Array(L);
    let total = 0;
    for (let j = 0; j < gold.length; j++) {
      const y = gold[j]!;
      if (y >= 0 && y < L) {
        counts[y]!++;
        total++;
      }
    }
    let present = 0;
    for (let y = 0; y < L; y++) if (counts[y]! > 0) present++;
    // A label no training token carries has no frequency; it keeps weight 1 (it gets no cost).
    // The cap keeps a label seen a handful of times (IOB1's B-) from dominating the loss.
    for (let y = 0; y < L; y++) {
      if (counts[y]! > 0) {
        weights[y] = Math.min(BALANCED_CAP, (total / (present * counts[y]!)) ** power);
      }
    }
  }
  for (const [name, w] of Object.entries(spec.labels ?? {})) {
    const y = labelNames.indexOf(name);
    if (y < 0) {
      throw new LagrangeError(
        "usage",
        `class weight for unknown label "${name}"; the training labels are ${labelNames.join(", ")}`,
      );
    }
    if (!isClassWeight(w)) {
      throw new LagrangeError(
        "usage",
        `class weight ${name}=${w}: expected a number in [${1 / MAX_CLASS_WEIGHT}, ${MAX_CLASS_WEIGHT}]`,
      );
    }
    weights[y] = w;
  }
  return weights;
}

/** Whether every weight is 1 (then training is the unweighted one, bit for bit). */
export function isUniform(weights: Float64Array | null): boolean {
  if (weights === null) return true;
  for (let y = 0; y < weights.length; y++) if (weights[y] !== 1) return false;
  return true;
}

/**
 * The cost-augmented (softmax-margin) unary scores of a sentence: at every position j with a known
 * gold label g, `costs[g]` (= log w_g) is added to the score of every label other than g. The
 * likelihood's partition function then weighs each labelling y′ by Π_{j: y′_j ≠ g_j} w_{g_j},
 * and the gold labelling (cost 0) keeps its score. Known labels only: an unknown one adds nothing.
 */
export function addMistakeCosts(
  unary: Float64Array,
  unaryBase: number,
  gold: Int32Array,
  from: number,
  n: number,
  L: number,
  costs: Float64Array,
): void {
  for (let j = 0; j < n; j++) {
    const g = gold[from + j]!;
    if (g < 0) continue;
    const c = costs[g]!;
    if (c === 0) continue;
    const row = unaryBase + j * L;
    for (let t = 0; t < L; t++) if (t !== g) unary[row + t]! += c;
  }
}

/** log w per label: the costs {@link addMistakeCosts} adds; null when every weight is 1. */
export function mistakeCosts(weights: Float64Array | null): Float64Array | null {
  if (weights === null || isUniform(weights)) return null;
  return weights.map(Math.log);
}
