import { LagrangeError } from "@lagrange/core";
import { formatByteSize } from "@lagrange/core/bytes";
import { DEFAULT_LBFGS_MEMORY } from "../train/lbfgs.js";
import type { CompiledDataset } from "./dataset.js";
import type { FeatureLayout } from "./layout.js";

/** What a training run is, as far as its memory goes. */
export interface TrainingMemoryOptions {
  /** Default `lbfgs`. */
  readonly algorithm?: "lbfgs" | "owlqn" | "ap" | "sgd";
  /** Worker threads of the L-BFGS objective (default 1). */
  readonly threads?: number;
  /** An L1 term (OWL-QN keeps two more weight vectors). */
  readonly l1?: boolean;
  /** Early stopping keeps the best weights seen. */
  readonly earlyStopping?: boolean;
  /** The plug-in objective's name (`bcrf`, `mean-field`), or none for the likelihood. */
  readonly objective?: string;
  /** 2: a second-order chain (L³ trigram weights and its own inference buffers). Default 1. */
  readonly order?: 1 | 2;
}

/**
 * The memory a training run will take, from its layout and corpus, before the trainer allocates
 * it. Every figure is in bytes except the counts.
 */
export interface TrainingMemoryEstimate {
  readonly labels: number;
  readonly attributes: number;
  /** Tokens of the training corpus. */
  readonly tokens: number;
  readonly stateFeatures: number;
  /** Order 2: the L³ trigram weights among `weights`. */
  readonly trigrams?: number;
  /**
   * Weights of the model: state features + L² transitions (+ first/last, conditioned bigrams;
   * + L³ trigrams at order 2).
   */
  readonly weights: number;
  /** Weight-sized float64 vectors alive during training (iterate, gradient, history, …). */
  readonly weightVectors: number;
  /** 8 · weights · weightVectors, plus the batch path's packed copies of the state weights. */
  readonly weightBytes: number;
  /** Per-sentence buffers (forward-backward, Viterbi, the objective's), over every thread. */
  readonly inferenceBytes: number;
  /** The compiled corpus, already in memory. */
  readonly corpusBytes: number;
  readonly totalBytes: number;
}

/**
 * Estimates what {@link trainCrf} will allocate, from the sizes the trainers and the encoder size
 * their buffers by: the weight vectors (L-BFGS keeps the iterate, gradient, previous iterate and
 * gradient, direction, 2·m history vectors and the batch path's copy of weights and gradient in
 * WebAssembly memory; the perceptron w, its sum and the average; SGD w, gradient and the best),
 * the inference buffers of one sentence of the longest length (n·L rows, L² transition blocks, and
 * (n−1)·L² when transitions depend on the position or bcrf's projections need them), once per
 * thread, and the compiled corpus. The JavaScript heap's own dictionaries (attribute names) are
 * not counted: they are proportional to the input already read.
 */
export function estimateTrainingMemory(
  layout: FeatureLayout,
  dataset: CompiledDataset,
  options: TrainingMemoryOptions = {},
): TrainingMemoryEstimate {
  const algorithm = options.algorithm ?? "lbfgs";
  const threads = Math.max(1, options.threads ?? 1);
  const L = layout.numLabels;
  const LL = L * L;
  const second = options.order === 2;
  // Order 2 gives every trigram a weight in every vector, the observed ones or not.
  const K = layout.numWeights + (second ? LL * L : 0);
  const S = layout.featureLabels.length;
  const quasiNewton = algorithm === "lbfgs" || algorithm === "owlqn";
  const m = DEFAULT_LBFGS_MEMORY;
  let vectors: number;
  if (quasiNewton) {
    // x, g, xp, gp, d, s[m], y[m]; the batch path's weights and gradient in WebAssembly memory.
    vectors = 5 + 2 * m + 2;
    if (options.l1 === true || algorithm === "owlqn") vectors += 2;
    // The pool's shared weights; per extra thread its gradient and its own batch copies.
    if (threads > 1) vectors += 1 + 3 * (threads - 1);
  } else if (algorithm === "ap") {
    vectors = 3;
  } else {
    vectors = 4;
  }
  if (options.earlyStopping === true) vectors += 1;
  // The batch path packs each state feature's weight and gradient with its label (16 bytes each).
  const packed = quasiNewton ? 32 * S * threads : 0;
  const weightBytes = 8 * K * vectors + packed;

  const n = Math.max(16, dataset.maxLength);
  const nl = n * L;
  // One inference context, as resident: its WebAssembly rows (alpha, beta, exp-unary, next,
  // marginals: five n·L) and L² blocks (pairwise, exp-transition, transposed), and the JavaScript
  // arrays it keeps (Viterbi's delta and int32 back-pointers, the transition cache and its mask).
  // The JavaScript rows the WebAssembly ones replace are never written, so never resident.
  const context = 8 * (6.5 * nl + 4 * LL) + LL;
  let perThread = context;
  const conditioned = layout.transitionFeaturePairs.length > 0;
  if (conditioned) {
    // Position-specific transitions: expTransition and transposed, twice (JavaScript and
    // WebAssembly), and the per-position pairwise marginals of the gradient.
    perThread += 8 * 5 * (n - 1) * LL;
  }
  if (dataset.labelSets != null || hasUnknownLabels(dataset)) {
    perThread += context + nl; // the clamped context and the label mask
  }
  if (options.objective === "bcrf") {
    // IBP's dense folded kernels and log-marginals, (n−1)·L² each, its kernel blocks and rows.
    perThread += 8 * (2 * (n - 1) * LL + 4 * LL + 8 * nl);
  } else if (options.objective !== undefined) {
    perThread += 8 * (LL + 4 * nl);
  }
  if (second) {
    // The second-order context: θ, its transpose, source and marginals (L³ each), L² rows per
    // token (ψ, α, β, pair marginals and int32 back-pointers); the trigram pattern (a byte per
    // trigram while collected, two int32 lists of at most L³).
    perThread += 8 * 4 * LL * L + 36 * n * LL;
  }
  const inferenceBytes = perThread * threads + (second ? 9 * LL * L : 0);
  const corpusBytes = datasetBytes(dataset);
  return {
    labels: L,
    attributes: layout.numAttributes,
    tokens: dataset.numTokens,
    stateFeatures: S,
    ...(second ? { trigrams: LL * L } : {}),
    weights: K,
    weightVectors: vectors,
    weightBytes,
    inferenceBytes,
    corpusBytes,
    totalBytes: weightBytes + inferenceBytes + corpusBytes,
  };
}

function hasUnknownLabels(dataset: CompiledDataset): boolean {
  const gold = dataset.labels;
  for (let j = 0; j < gold.length; j++) if (gold[j]! < 0) return true;
  return false;
}

function datasetBytes(dataset: CompiledDataset): number {
  let bytes = dataset.instanceOffsets.byteLength + dataset.labels.byteLength;
  for (const part of [dataset.state, dataset.transition]) {
    if (part === null) continue;
    bytes += part.offsets.byteLength + part.ids.byteLength + (part.values?.byteLength ?? 0);
  }
  const sets = dataset.labelSets;
  if (sets != null) bytes += sets.offsets.byteLength + sets.ids.byteLength;
  return bytes;
}

/** The estimate in words: "10,000 labels × 3,412 attributes → 100,041,380 weights …". */
function describeTrainingMemory(estimate: TrainingMemoryEstimate): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const e = estimate;
  return `${n(e.labels)} labels (${n(e.labels * e.labels)} label pairs${e.trigrams === undefined ? "" : `, ${n(e.trigrams)} label triples`}) and ${n(e.attributes)} attributes → ${n(e.weights)} weights (${formatByteSize(8 * e.weights)} each copy; training keeps ${e.weightVectors}: ${formatByteSize(e.weightBytes)}), ${formatByteSize(e.inferenceBytes)} of per-sentence buffers, ${formatByteSize(e.corpusBytes)} of compiled data`;
}

/**
 * Training would need more memory than the caller allowed (`maxMemoryBytes`): refused before the
 * large buffers are allocated. `estimate` holds the figures.
 */
export class TrainingMemoryError extends LagrangeError {
  override readonly name = "TrainingMemoryError";
  /** What the run would reach: `inUseBytes`, the estimate and `extra`. */
  readonly neededBytes: number;
  /**
   * `inUseBytes`: what the process holds already (the corpus and its attributes, read before the
   * estimate), when the caller knows it; `extra`: what the caller allocates besides the CRF's
   * training (a general CRF's group chains). Both come on top of the estimate.
   */
  constructor(
    readonly estimate: TrainingMemoryEstimate,
    readonly limitBytes: number,
    readonly inUseBytes = 0,
    readonly extra?: { readonly bytes: number; readonly what: string },
  ) {
    const needed = inUseBytes + estimate.totalBytes + (extra?.bytes ?? 0);
    const inUse = inUseBytes > 0 ? `${formatByteSize(inUseBytes)} in use and ` : "";
    const besides =
      extra === undefined ? "" : `; and ${formatByteSize(extra.bytes)} for ${extra.what}`;
    super(
      "usage",
      `training would need about ${formatByteSize(needed)}, more than the ${formatByteSize(limitBytes)} allowed (${inUse}${formatByteSize(estimate.totalBytes)} more: ${describeTrainingMemory(estimate)}${besides})`,
    );
    this.neededBytes = needed;
  }
}
