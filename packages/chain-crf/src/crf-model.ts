import {
  type ChainScores,
  type JsonValue,
  LabelSet,
  LagrangeError,
  ProblemValidationError,
  type TransitionMask,
} from "@lagrange/core";
import { ChainScorer } from "./chain-scorer.js";
import { CrfEncoder } from "./crf-encoder.js";
import type { AttributeSequence } from "./features/types.js";
import { InferenceContext } from "./inference/context.js";
import { forwardBackwardKernel } from "./inference/forward-backward.js";
import { kBestKernel } from "./inference/kbest.js";
import {
  SecondOrderContext,
  secondOrderForwardBackwardKernel,
  secondOrderViterbiKernel,
} from "./inference/second-order.js";
import type { ChainView } from "./inference/view.js";
import { viterbiKernel } from "./inference/viterbi.js";
import { type CompiledDataset, compileDataset, type LabelledSequence } from "./model/dataset.js";
import {
  AttributeFrequencyError,
  buildAttributeDictionary,
  countAttributes,
  NoStateAttributesError,
} from "./model/dictionary.js";
import { buildFeatureLayout, type FeatureLayout, type LayoutOptions } from "./model/layout.js";
import { SequenceScorer } from "./model/sequence-scorer.js";
import { type InitialModel, unionDictionary, warmStart } from "./model/warm-start.js";

/** Core's JSON value type, re-exported where this package's API has always named it. */
export type { JsonValue };

/** Per call options of the model's own decoding (`tag`, `marginals`, `kbest`, `chainScores`). */
export interface CrfDecodeOptions {
  /** Per call; overrides the model's `constraints`. */
  readonly constraints?: TransitionMask;
  /** Labels to force: a label name (or id) per position, null / −1 for a free position. */
  readonly fixed?: ReadonlyArray<string | number | null>;
}

export interface CrfModelInit {
  readonly labels: LabelSet;
  readonly attributes: LabelSet;
  readonly transitionAttributes?: LabelSet;
  readonly layout: FeatureLayout;
  readonly weights: Float64Array;
  /** Name of the feature preset the model was trained with (to extract the same attributes). */
  readonly preset?: string | null;
  /**
   * Training settings, stored in model files. The {@link ModelRecord} keys among them (`scheme`,
   * `taskPreset`, `decoder`, `generalCrf`) are read into the model's typed fields; the rest is
   * provenance.
   */
  readonly settings?: { readonly [key: string]: JsonValue };
  /** Default decoding constraints. */
  readonly constraints?: TransitionMask;
  /**
   * A two-stage model's first stage, as the bytes of its own model file: tagging runs it over a
   * document first and reads its votes (the second stage's `settings.features.votes`).
   */
  readonly firstStage?: Uint8Array | null;
  /**
   * A second-order model's label-trigram weights, (a, b, c) at a·L² + b·L + c (L³ of them),
   * added to the first-order scores of `weights`; null or absent for a first-order model.
   */
  readonly trigrams?: Float64Array | null;
}

/**
 * What a model records for the code that tags with it, beyond its weights: typed fields of the
 * model (a model file's header keeps each as a field of its own), where the rest of `settings`
 * is provenance, for people and `lagrange info`.
 */
export interface ModelRecord {
  /** The label scheme the model was trained under (IOB2, BIOES, …); null when it records none. */
  readonly scheme: string | null;
  /** The task preset the model was trained with (it chose the features and the decoder). */
  readonly taskPreset: string | null;
  /** The decoder the model is meant for (its task preset's); null: its kind's default. */
  readonly decoder: string | null;
  /** A general CRF's consistency model (recipes validates it); null for a plain chain CRF. */
  readonly generalCrf: JsonValue | null;
}

/** The settings keys that hold a {@link ModelRecord}'s fields. Internal to the package. */
export const MODEL_RECORD_KEYS = ["scheme", "taskPreset", "decoder", "generalCrf"] as const;
/** The record's fields that hold a name. */
const NAME_FIELDS = ["scheme", "taskPreset", "decoder"] as const;

/**
 * The record of `settings`, or the reason it is malformed (a name that is not text): a model file
 * is input, so its loader reports the reason, where a model built in memory throws it.
 */
export function modelRecordOf(settings: {
  readonly [key: string]: JsonValue;
}): ModelRecord | string {
  for (const key of NAME_FIELDS) {
    const value = settings[key];
    if (value !== undefined && typeof value !== "string") {
      return `${key} is ${JSON.stringify(value)}; expected a name`;
    }
  }
  const text = (key: (typeof NAME_FIELDS)[number]) => (settings[key] as string | undefined) ?? null;
  return {
    scheme: text("scheme"),
    taskPreset: text("taskPreset"),
    decoder: text("decoder"),
    generalCrf: settings.generalCrf ?? null,
  };
}

export interface ModelSummary {
  readonly labels: string[];
  readonly attributes: number;
  readonly transitionAttributes: number;
  readonly stateFeatures: number;
  readonly transitionFeatures: number;
  readonly weights: number;
  readonly nonZeroWeights: number;
  readonly startEnd: boolean;
  readonly preset: string | null;
  readonly settings: { readonly [key: string]: JsonValue };
  /** Size in bytes of the embedded first-stage model (a two-stage model), else null. */
  readonly firstStage: number | null;
  /** Label trigram weights (L³) of a second-order model; absent for a first-order one. */
  readonly trigrams?: number;
}

export interface MarginalsResult {
  readonly logPartition: number;
  /** p(y_i = t) at [i·L + t]. */
  readonly marginals: Float64Array;
}

export interface KBestLabels {
  readonly labels: string[][];
  readonly scores: number[];
}

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
      firstStage: this.firstStage === null ? null : this.firstStage.length,
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
   * unchanged; the model file shrinks.
   */
  pruned(): CrfModel {
    const { layout, weights } = this;
    const L = layout.numLabels;
    const LL = L * L;
    const attributes = new LabelSet();
    const attributeOffsets: number[] = [0];
    const featureLabels: number[] = [];
    const stateWeights: number[] = [];
    for (let a = 0; a < layout.numAttributes; a++) {
      const before = featureLabels.length;
      for (let f = layout.attributeOffsets[a]!; f < layout.attributeOffsets[a + 1]!; f++) {
        if (weights[f] === 0) continue;
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

export interface TrainingDataOptions {
  /** Keep attributes seen at least this often (CRFsuite-style cut-off). Default 1. */
  readonly minAttributeFrequency?: number;
  /** Labels in a fixed order (e.g. a scheme's); labels seen in the data are added after them. */
  readonly labels?: readonly string[];
  /** Allocate the compiled data on SharedArrayBuffer (for worker threads). Default true. */
  readonly shared?: boolean;
  readonly source?: string;
  /**
   * Called once the feature layout is known and before the encoder and the trainer allocate
   * their label-sized buffers: the place to estimate the memory training needs
   * (`estimateTrainingMemory`) and refuse by throwing.
   */
  readonly beforeEncoder?: (prepared: PreparedLayout) => void;
  /**
   * Continued training: keep every label, attribute and feature of this model (its labels first,
   * with their ids), add those the sequences show, and start from its weights
   * ({@link TrainingData.initialWeights}; 0 for the added features). Start/end weights follow it.
   */
  readonly init?: InitialModel;
}

/** What {@link TrainingDataOptions.beforeEncoder} is shown. */
export interface PreparedLayout {
  readonly dataset: CompiledDataset;
  readonly layout: FeatureLayout;
  /** Distinct state attributes seen, before the frequency cut-off. */
  readonly attributesSeen: number;
  /** How often the most frequent state attribute occurs. */
  readonly highestAttributeCount: number;
}

/** Everything a trainer needs, plus the dictionaries to build the model from its weights. */
export interface TrainingData {
  readonly labels: LabelSet;
  readonly attributes: LabelSet;
  readonly transitionAttributes: LabelSet;
  readonly dataset: CompiledDataset;
  readonly layout: FeatureLayout;
  readonly encoder: CrfEncoder;
  /** With {@link TrainingDataOptions.init}: its weights in this layout, the trainers' start. */
  readonly initialWeights?: Float64Array;
}

/**
 * Dictionaries, compiled corpus, feature layout and encoder of a training corpus: the step between
 * extracted attributes and a trainer.
 */
export function prepareTrainingData(
  sequences: readonly LabelledSequence[],
  options: TrainingDataOptions & LayoutOptions = {},
): TrainingData {
  if (sequences.length === 0) {
    throw new ProblemValidationError(options.source ?? "sequences", "no training sequences");
  }
  const minFrequency = options.minAttributeFrequency ?? 1;
  const counted = countAttributes(
    sequences.map((s) => s.attributes),
    minFrequency,
  );
  const init = options.init;
  const attributes =
    init === undefined ? counted.dictionary : unionDictionary(counted.dictionary, init.attributes);
  if (attributes.size === 0 && counted.distinct > 0) {
    throw new AttributeFrequencyError(minFrequency, counted.highestCount, counted.distinct);
  }
  if (attributes.size === 0) throw new NoStateAttributesError(options.source ?? "sequences");
  const seenTransitionAttributes = buildAttributeDictionary(
    sequences.map((s) => s.attributes.transition),
    minFrequency,
  );
  const transitionAttributes =
    init === undefined
      ? seenTransitionAttributes
      : unionDictionary(seenTransitionAttributes, init.transitionAttributes);
  const labels = LabelSet.from([...(init?.labels.names() ?? []), ...(options.labels ?? [])]);
  const dataset = compileDataset(sequences, {
    attributes,
    transitionAttributes,
    labels,
    internLabels: true,
    shared: options.shared ?? true,
    ...(options.source === undefined ? {} : { source: options.source }),
  });
  labels.freeze();
  if (labels.size === 0) {
    throw new ProblemValidationError(
      options.source ?? "sequences",
      "no labelled token: training needs at least one gold label",
    );
  }
  const observed = buildFeatureLayout(
    dataset,
    attributes.size,
    labels.size,
    transitionAttributes.size,
    init === undefined ? options : { ...options, startEnd: init.layout.startBase >= 0 },
  );
  const started =
    init === undefined
      ? undefined
      : warmStart(init, observed, labels, attributes, transitionAttributes);
  const layout = started?.layout ?? observed;
  options.beforeEncoder?.({
    dataset,
    layout,
    attributesSeen: counted.distinct,
    highestAttributeCount: counted.highestCount,
  });
  const encoder = new CrfEncoder(dataset, layout);
  return {
    labels,
    attributes,
    transitionAttributes,
    dataset,
    layout,
    encoder,
    ...(started === undefined ? {} : { initialWeights: started.weights }),
  };
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
