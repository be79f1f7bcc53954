import {
  type ChainScores,
  type JsonValue,
  LabelSet,
  LagrangeError,
  ProblemValidationError,
  type TransitionMask,
} from "@lagrange/core";
import { ChainScorer } from "./chain-scorer.js";
import {
  type CrfDecodeOptions,
  type CrfModelInit,
  type KBestLabels,
  type MarginalsResult,
  type ModelFeature,
  type ModelRecord,
  type ModelSummary,
  modelRecordOf,
  type PruneOptions,
} from "./crf-model-types.js";
import type { AttributeSequence } from "./features/types.js";
import { InferenceContext } from "./inference/context.js";
import { forwardBackwardKernel } from "./inference/forward-backward.js";
import { kBestKernel } from "./inference/kbest.js";
import { secondOrderViterbiKernel } from "./inference/second-order.js";
import { SecondOrderContext } from "./inference/second-order-context.js";
import { secondOrderForwardBackwardKernel } from "./inference/second-order-forward-backward.js";
import type { ChainView } from "./inference/view.js";
import { viterbiKernel } from "./inference/viterbi.js";
import { type CompiledDataset, compileDataset, type LabelledSequence } from "./model/dataset.js";
import type { FeatureLayout } from "./model/layout.js";
import { SequenceScorer } from "./model/sequence-scorer.js";
import type { TrainingData } from "./training-data.js";

/** Core's JSON value type, re-exported where this package's API has always named it. */
export type { JsonValue };

/**
 * A trained linear-chain CRF: label and attribute dictionaries, feature layout and weights, plus
 * everything needed to decode a sequence of attributes. Decoding works in private buffers that
 * are reused from call to call (nothing is allocated per sentence beyond the returned labels).
 */
export class CrfModel implements ModelRecord {
  readonly labels: LabelSet;
  readonly attributes: LabelSet;
  readonly transitionAttributes: LabelSet;
  readonly layout: FeatureLayout;
  readonly weights: Float64Array;
  readonly preset: string | null;
  /** Every setting recorded, the record's fields included (for `info` and provenance). */
  readonly settings: { readonly [key: string]: JsonValue };
  readonly scheme: string | null;
  readonly taskPreset: string | null;
  readonly decoder: string | null;
  readonly generalCrf: JsonValue | null;
  readonly learnedConstraints: JsonValue | null;
  /** A two-stage model's first stage (the bytes of its model file), else null. */
  readonly firstStage: Uint8Array | null;
  /** A second-order model's label-trigram weights (L³), else null. */
  readonly trigrams: Float64Array | null;
  /** Default decoding constraints (validated on assignment through the constructor). */
  constraints: TransitionMask;
  readonly #scorer: SequenceScorer;
  readonly #ctx = new InferenceContext();
  #secondOrder: SecondOrderContext | null = null;

  constructor(init: CrfModelInit) {
    const { layout } = init;
    if (init.labels.size !== layout.numLabels) {
      throw new ProblemValidationError(
        "model.labels",
        `expected ${layout.numLabels} labels (the layout's), got ${init.labels.size}`,
      );
    }
    if (init.attributes.size !== layout.numAttributes) {
      throw new ProblemValidationError(
        "model.attributes",
        `expected ${layout.numAttributes} attributes (the layout's), got ${init.attributes.size}`,
      );
    }
    const transitionAttributes = init.transitionAttributes ?? new LabelSet();
    if (transitionAttributes.size !== layout.numTransitionAttributes) {
      throw new ProblemValidationError(
        "model.transitionAttributes",
        `expected ${layout.numTransitionAttributes}, got ${transitionAttributes.size}`,
      );
    }
    if (init.weights.length !== layout.numWeights) {
      throw new ProblemValidationError(
        "model.weights",
        `expected ${layout.numWeights} weights, got ${init.weights.length}`,
      );
    }
    this.labels = init.labels.freeze();
    this.attributes = init.attributes.freeze();
    this.transitionAttributes = transitionAttributes.freeze();
    this.layout = layout;
    this.weights = init.weights;
    this.preset = init.preset ?? null;
    this.settings = init.settings ?? {};
    const record = modelRecordOf(this.settings);
    if (typeof record === "string") throw new ProblemValidationError("model.settings", record);
    this.scheme = record.scheme;
    this.taskPreset = record.taskPreset;
    this.decoder = record.decoder;
    this.generalCrf = record.generalCrf;
    this.learnedConstraints = record.learnedConstraints;
    this.firstStage = init.firstStage ?? null;
    const trigrams = init.trigrams ?? null;
    const LLL = layout.numLabels ** 3;
    if (trigrams !== null && trigrams.length !== LLL) {
      throw new ProblemValidationError(
        "model.trigrams",
        `expected ${LLL} trigram weights (L³), got ${trigrams.length}`,
      );
    }
    this.trigrams = trigrams;
    this.constraints = checkConstraints(init.constraints ?? {}, layout.numLabels);
    this.#scorer = new SequenceScorer(layout);
  }

  get numLabels(): number {
    return this.layout.numLabels;
  }

  /** 2 for a model with label-trigram weights, else 1. */
  get order(): 1 | 2 {
    return this.trigrams === null ? 1 : 2;
  }

  /**
   * The parts beyond a plain first-order chain that this model uses (a format 4 header lists
   * them): what a caller asks to know what the model can do, instead of probing its fields.
   */
  get features(): readonly ModelFeature[] {
    const parts = [
      ["first-stage", this.firstStage],
      ["second-order", this.trigrams],
      ["general-crf", this.generalCrf],
      ["constraints", this.learnedConstraints],
    ] as const;
    return parts.filter(([, part]) => part !== null).map(([feature]) => feature);
  }

  /**
   * Refuses a call that only the first-order chain supports: its scores would silently leave the
   * trigrams out.
   */
  #firstOrderOnly(what: string): void {
    if (this.trigrams !== null) {
      throw new LagrangeError(
        "usage",
        `${what} needs a first-order model; this one is second-order (label trigrams): decode it with viterbi (tag) or marginals`,
      );
    }
  }

  /** Exact second-order Viterbi of the loaded view into `out`. */
  #viterbi(v: ChainView, out: Int32Array): number {
    if (this.trigrams === null) return viterbiKernel(this.#ctx, v, out);
    this.#secondOrder ??= new SecondOrderContext();
    return secondOrderViterbiKernel(this.#secondOrder, v, this.trigrams, 0, out);
  }

  /** The best label sequence for one sequence of attributes. */
  tag(sequence: AttributeSequence, options: CrfDecodeOptions = {}): string[] {
    return this.labels.decode(this.tagIds(sequence, options));
  }

  /** Label ids of the best labelling, into `out` when given (length ≥ n). */
  tagIds(
    sequence: AttributeSequence,
    options: CrfDecodeOptions = {},
    out?: Int32Array,
  ): Int32Array {
    const v = this.#load(sequence, options);
    const labels = out ?? new Int32Array(v.n);
    const score = this.#viterbi(v, labels);
    if (score === Number.NEGATIVE_INFINITY) {
      throw new ProblemValidationError(
        "constraints",
        "no labelling satisfies the decoding constraints and fixed labels",
      );
    }
    return labels;
  }

  /** Viterbi on instance i of a dataset compiled by {@link CrfModel.compile}; returns the score. */
  tagInstance(
    dataset: CompiledDataset,
    i: number,
    out: Int32Array,
    options: CrfDecodeOptions = {},
  ): number {
    const from = dataset.instanceOffsets[i]!;
    const to = dataset.instanceOffsets[i + 1]!;
    const v = this.#scorer.instance.load(dataset.state, dataset.transition, from, to, this.weights);
    this.#constrain(v, options);
    return this.#viterbi(v, out);
  }

  /** log Z and token marginals under the model (and its constraints). */
  marginals(sequence: AttributeSequence, options: CrfDecodeOptions = {}): MarginalsResult {
    const v = this.#load(sequence, options);
    if (this.trigrams !== null) {
      this.#secondOrder ??= new SecondOrderContext();
      const so = this.#secondOrder;
      const logPartition = secondOrderForwardBackwardKernel(so, v, this.trigrams, 0, false);
      return { logPartition, marginals: so.marginals.slice(0, v.n * v.L) };
    }
    const logPartition = forwardBackwardKernel(this.#ctx, v, false);
    return { logPartition, marginals: this.#ctx.marginals.slice(0, v.n * v.L) };
  }

  /** The k best labellings with their scores, best first. */
  kbest(sequence: AttributeSequence, k: number, options: CrfDecodeOptions = {}): KBestLabels {
    if (!Number.isInteger(k) || k < 1) {
      throw new ProblemValidationError("k", `expected an integer ≥ 1, got ${k}`);
    }
    this.#firstOrderOnly("k-best decoding");
    const v = this.#load(sequence, options);
    const flat = new Int32Array(k * v.n);
    const scores = new Float64Array(k);
    const found = kBestKernel(this.#ctx, v, k, flat, scores);
    const labels: string[][] = [];
    for (let r = 0; r < found; r++)
      labels.push(this.labels.decode(flat.subarray(r * v.n, (r + 1) * v.n)));
    return { labels, scores: Array.from(scores.subarray(0, found)) };
  }

  /**
   * The chain scores of a sequence, as fresh arrays: the input of a dual-decomposition slave or
   * any core solver. Constraints become the mask and −∞ start/end scores.
   */
  chainScores(sequence: AttributeSequence, options: CrfDecodeOptions = {}): ChainScores {
    this.#firstOrderOnly("first-order chain scores (the decoders other than viterbi)");
    return this.#copyScores(this.#load(sequence, options));
  }

  /**
   * A reusable producer of chain scores for decoding a corpus: like {@link CrfModel.chainScores}
   * but without copies (the transition block is a view on the weights, the unary scores live in
   * the scorer's own buffer), so each result is valid until the scorer's next call.
   */
  scorer(
    constraints: TransitionMask = this.constraints,
    options: { readonly firstOrderPart?: boolean } = {},
  ): ChainScorer {
    // A second-order model's first-order part, for a caller that adds the trigrams itself
    // (secondOrderDecoder); without the option such a model refuses.
    if (options.firstOrderPart !== true) {
      this.#firstOrderOnly("first-order chain scores (the decoders other than viterbi)");
    }
    return new ChainScorer(this, checkConstraints(constraints, this.numLabels));
  }

  /** {@link CrfModel.chainScores} of instance i of a dataset compiled by {@link CrfModel.compile}. */
  instanceChainScores(
    dataset: CompiledDataset,
    i: number,
    options: CrfDecodeOptions = {},
  ): ChainScores {
    if (!Number.isInteger(i) || i < 0 || i >= dataset.numInstances) {
      throw new RangeError(`instance ${i} is outside 0..${dataset.numInstances - 1}`);
    }
    this.#firstOrderOnly("first-order chain scores (the decoders other than viterbi)");
    const from = dataset.instanceOffsets[i]!;
    const to = dataset.instanceOffsets[i + 1]!;
    const v = this.#scorer.instance.load(dataset.state, dataset.transition, from, to, this.weights);
    this.#constrain(v, options);
    return this.#copyScores(v);
  }

  #copyScores(v: ChainView): ChainScores {
    const { n, L } = v;
    const LL = L * L;
    const unary = v.unary.slice(0, n * L);
    const transition =
      v.transitionStride === 0
        ? v.transition.slice(v.transitionBase, v.transitionBase + LL)
        : v.transition.slice(0, Math.max(1, n - 1) * LL);
    const fixed = v.fixed;
    if (fixed !== null) {
      for (let i = 0; i < n; i++) {
        const f = fixed[i]!;
        if (f >= 0)
          for (let t = 0; t < L; t++) if (t !== f) unary[i * L + t] = Number.NEGATIVE_INFINITY;
      }
    }
    const start = new Float64Array(L);
    const end = new Float64Array(L);
    for (let t = 0; t < L; t++) {
      start[t] = v.start === null ? 0 : v.start[v.startBase + t]!;
      end[t] = v.end === null ? 0 : v.end[v.endBase + t]!;
      if (v.allowedStart !== null && v.allowedStart[t] === 0) start[t] = Number.NEGATIVE_INFINITY;
      if (v.allowedEnd !== null && v.allowedEnd[t] === 0) end[t] = Number.NEGATIVE_INFINITY;
    }
    const scores: {
      n: number;
      L: number;
      unary: Float64Array;
      transition: Float64Array;
      start: Float64Array;
      end: Float64Array;
      allowed?: Uint8Array;
    } = { n, L, unary, transition, start, end };
    if (v.allowed !== null) scores.allowed = v.allowed.slice();
    return scores;
  }

  /** Sizes and provenance, for `lagrange info`. */
  summary(): ModelSummary {
    let nonZero = 0;
    for (let k = 0; k < this.weights.length; k++) if (this.weights[k] !== 0) nonZero++;
    return {
      labels: [...this.labels.names()],
      attributes: this.attributes.size,
      transitionAttributes: this.transitionAttributes.size,
      stateFeatures: this.layout.featureLabels.length,
      transitionFeatures: this.layout.transitionFeaturePairs.length,
      weights: this.weights.length,
      nonZeroWeights: nonZero,
      startEnd: this.layout.startBase >= 0,
      preset: this.preset,
      settings: this.settings,
      firstStage: this.firstStage?.length ?? null,
      ...(this.trigrams === null ? {} : { trigrams: this.trigrams.length }),
    };
  }

  /**
   * The same model (weights shared, not copied) with `extra` merged into its settings: how a
   * model carries what was learned on top of it (a general CRF's consistency weights) in one file.
   */
  withSettings(extra: { readonly [key: string]: JsonValue }): CrfModel {
    return this.#with({ ...this.settings, ...extra }, this.constraints);
  }

  /**
   * The same model (weights shared) decoding under `constraints` by default: how a model read
   * from a file, which stores its label scheme but not the scheme's mask, gets the mask back.
   */
  withConstraints(constraints: TransitionMask): CrfModel {
    return this.#with(this.settings, checkConstraints(constraints, this.numLabels));
  }

  /**
   * The same model (weights shared) with `firstStage` embedded: the bytes of the first stage's
   * model file, which tagging runs before this model to compute its votes.
   */
  withFirstStage(firstStage: Uint8Array | null): CrfModel {
    return this.#with(this.settings, this.constraints, firstStage);
  }

  #with(
    settings: { readonly [key: string]: JsonValue },
    constraints: TransitionMask,
    firstStage: Uint8Array | null = this.firstStage,
  ): CrfModel {
    return new CrfModel({
      firstStage,
      trigrams: this.trigrams,
      labels: this.labels,
      attributes: this.attributes,
      transitionAttributes: this.transitionAttributes,
      layout: this.layout,
      weights: this.weights,
      preset: this.preset,
      settings,
      constraints,
    });
  }

  /**
   * The same model without the zero-weight state and conditioned-bigram features (many after L1
   * training) and without the attributes left with none: every score, hence every decoding, is
   * unchanged; the model file shrinks. `below` also drops the state features whose weight is
   * smaller in magnitude, `keep` all but the `keep` strongest (ties at the cut stay): a score then
   * changes by at most the dropped weights of its attributes.
   */
  pruned(options: PruneOptions = {}): CrfModel {
    const { layout, weights } = this;
    const L = layout.numLabels;
    const LL = L * L;
    const cut = stateWeightCut(weights.subarray(0, layout.transitionBase), options);
    const attributes = new LabelSet();
    const attributeOffsets: number[] = [0];
    const featureLabels: number[] = [];
    const stateWeights: number[] = [];
    for (let a = 0; a < layout.numAttributes; a++) {
      const before = featureLabels.length;
      for (let f = layout.attributeOffsets[a]!; f < layout.attributeOffsets[a + 1]!; f++) {
        if (weights[f] === 0 || Math.abs(weights[f]!) < cut) continue;
        featureLabels.push(layout.featureLabels[f]!);
        stateWeights.push(weights[f]!);
      }
      if (featureLabels.length > before) {
        attributes.intern(this.attributes.name(a));
        attributeOffsets.push(featureLabels.length);
      }
    }
    const transitionAttributes = new LabelSet();
    const trOffsets: number[] = [0];
    const pairs: number[] = [];
    const trWeights: number[] = [];
    for (let a = 0; a < layout.numTransitionAttributes; a++) {
      const before = pairs.length;
      for (
        let f = layout.transitionAttributeOffsets[a]!;
        f < layout.transitionAttributeOffsets[a + 1]!;
        f++
      ) {
        const w = weights[layout.transitionAttributeBase + f]!;
        if (w === 0) continue;
        pairs.push(layout.transitionFeaturePairs[f]!);
        trWeights.push(w);
      }
      if (pairs.length > before) {
        transitionAttributes.intern(this.transitionAttributes.name(a));
        trOffsets.push(pairs.length);
      }
    }
    const S = featureLabels.length;
    const startBase = layout.startBase >= 0 ? S + LL : -1;
    const endBase = layout.startBase >= 0 ? S + LL + L : -1;
    const transitionAttributeBase = S + LL + (layout.startBase >= 0 ? 2 * L : 0);
    const numWeights = transitionAttributeBase + pairs.length;
    const out = new Float64Array(numWeights);
    out.set(stateWeights, 0);
    out.set(weights.subarray(layout.transitionBase, layout.transitionBase + LL), S);
    if (layout.startBase >= 0) {
      out.set(weights.subarray(layout.startBase, layout.startBase + L), startBase);
      out.set(weights.subarray(layout.endBase, layout.endBase + L), endBase);
    }
    out.set(trWeights, transitionAttributeBase);
    return new CrfModel({
      labels: LabelSet.from(this.labels.names()),
      attributes,
      transitionAttributes,
      layout: {
        numLabels: L,
        numAttributes: attributes.size,
        attributeOffsets: Int32Array.from(attributeOffsets),
        featureLabels: Int32Array.from(featureLabels),
        transitionBase: S,
        startBase,
        endBase,
        numTransitionAttributes: transitionAttributes.size,
        transitionAttributeOffsets: Int32Array.from(trOffsets),
        transitionFeaturePairs: Int32Array.from(pairs),
        transitionAttributeBase,
        numWeights,
      },
      weights: out,
      preset: this.preset,
      settings: this.settings,
      constraints: this.constraints,
      firstStage: this.firstStage,
      trigrams: this.trigrams,
    });
  }

  /** Compiles sequences against this model's dictionaries (unknown attributes are dropped). */
  compile(
    sequences: readonly LabelledSequence[],
    options: { readonly shared?: boolean; readonly source?: string } = {},
  ): CompiledDataset {
    return compileDataset(sequences, {
      attributes: this.attributes,
      transitionAttributes: this.transitionAttributes,
      labels: this.labels,
      shared: options.shared ?? false,
      ...(options.source === undefined ? {} : { source: options.source }),
    });
  }

  #load(sequence: AttributeSequence, options: CrfDecodeOptions): ChainView {
    const v = this.#scorer.load(sequence, this.attributes, this.transitionAttributes, this.weights);
    this.#constrain(v, options);
    return v;
  }

  #fixed = new Int32Array(0);

  #constrain(v: ChainView, options: CrfDecodeOptions): void {
    const c =
      options.constraints === undefined
        ? this.constraints
        : checkConstraints(options.constraints, v.L);
    v.allowed = c.allowed ?? null;
    v.allowedStart = c.allowedStart ?? null;
    v.allowedEnd = c.allowedEnd ?? null;
    v.fixed = null;
    v.labelMask = null;
    const fixed = options.fixed;
    if (fixed === undefined) return;
    if (fixed.length !== v.n) {
      throw new ProblemValidationError("fixed", `expected ${v.n} entries, got ${fixed.length}`);
    }
    if (this.#fixed.length < v.n) this.#fixed = new Int32Array(v.n);
    for (let i = 0; i < v.n; i++) {
      const f = fixed[i];
      let id: number;
      if (f === null || f === undefined || f === -1) id = -1;
      else if (typeof f === "string") id = this.labels.lookup(f);
      else id = Number.isInteger(f) && f >= 0 && f < v.L ? f : -2;
      if (id === -2 || (typeof f === "string" && id < 0)) {
        throw new ProblemValidationError(`fixed[${i}]`, `unknown label ${JSON.stringify(f)}`);
      }
      this.#fixed[i] = id;
    }
    v.fixed = this.#fixed;
  }
}

/**
 * The smallest |weight| a pruned model keeps of `state` (0: every non-zero one): `below`, or the
 * `keep`-th largest magnitude.
 */
function stateWeightCut(state: Float64Array, options: PruneOptions): number {
  const { below, keep } = options;
  if (below !== undefined && keep !== undefined) {
    throw new RangeError("pruned: give below or keep, not both");
  }
  if (below !== undefined) {
    if (!(below >= 0 && below < Number.POSITIVE_INFINITY)) {
      throw new RangeError(`pruned: below must be a finite number ≥ 0, got ${below}`);
    }
    return below;
  }
  if (keep === undefined) return 0;
  if (!Number.isSafeInteger(keep) || keep < 0) {
    throw new RangeError(`pruned: keep must be an integer ≥ 0, got ${keep}`);
  }
  if (keep >= state.length) return 0;
  if (keep === 0) return Number.POSITIVE_INFINITY;
  const magnitudes = Float64Array.from(state, Math.abs).sort();
  // A zero cut would keep every zero weight too: they go whatever the count.
  return Math.max(magnitudes[state.length - keep]!, Number.MIN_VALUE);
}

function checkConstraints(c: TransitionMask, L: number): TransitionMask {
  if (c.allowed !== undefined && c.allowed.length !== L * L) {
    throw new ProblemValidationError(
      "constraints.allowed",
      `expected length L·L = ${L * L}, got ${c.allowed.length}`,
    );
  }
  for (const key of ["allowedStart", "allowedEnd"] as const) {
    const mask = c[key];
    if (mask !== undefined && mask.length !== L) {
      throw new ProblemValidationError(
        `constraints.${key}`,
        `expected length L = ${L}, got ${mask.length}`,
      );
    }
  }
  return c;
}

/**
 * A model from prepared training data and trained weights: the layout's weights, or those followed
 * by L³ label-trigram weights (a second-order encoder's vector), which make a second-order model.
 */
export function modelFromTraining(
  data: TrainingData,
  weights: Float64Array,
  extra: {
    readonly preset?: string | null;
    readonly settings?: { readonly [key: string]: JsonValue };
    readonly constraints?: TransitionMask;
  } = {},
): CrfModel {
  const K = data.layout.numWeights;
  const secondOrder = weights.length === K + data.layout.numLabels ** 3 && weights.length > K;
  return new CrfModel({
    labels: data.labels,
    attributes: data.attributes,
    transitionAttributes: data.transitionAttributes,
    layout: data.layout,
    weights: secondOrder ? weights.slice(0, K) : weights,
    ...(secondOrder ? { trigrams: weights.slice(K) } : {}),
    ...extra,
  });
}
