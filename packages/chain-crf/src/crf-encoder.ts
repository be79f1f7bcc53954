import type { TransitionMask } from "@lagrange/core";
import { createSweepWorkspace, type SweepWorkspace, startSweepPass } from "./encoder/batch.js";
import { mistakeCosts } from "./encoder/class-weights.js";
import { checkTrainingConstraints, isConstrained, NO_CONSTRAINTS } from "./encoder/constraints.js";
import { addLabellingCounts } from "./encoder/feature-counts.js";
import { InstanceLoss } from "./encoder/loss.js";
import type { SequenceObjective } from "./encoder/objective.js";
import {
  type CrfEncoderDescriptor,
  encoderDescriptor,
  type InstanceRange,
  restoredRange,
  type SharedCorpus,
  shareCorpus,
} from "./encoder/transfer.js";
import { type Encoder, instanceLossPass, type LossPass } from "./encoder.js";
import { viterbiKernel } from "./inference/viterbi.js";
import type { CompiledDataset } from "./model/dataset.js";
import type { FeatureLayout } from "./model/layout.js";

export type { CrfEncoderDescriptor } from "./encoder/transfer.js";

/**
 * The linear-chain CRF behind the trainers' {@link Encoder} view: negative log-likelihood and its
 * gradient by scaled forward-backward, Viterbi decoding, feature counts of a labelling. Instances
 * with unlabelled tokens (gold −1) are trained on the partial labels: the loss is
 * log Z − log Z(labels consistent with the known ones), the gradient the difference of the two
 * expectations.
 */
export class CrfEncoder implements Encoder {
  readonly dataset: CompiledDataset;
  readonly layout: FeatureLayout;
  readonly numWeights: number;
  readonly numInstances: number;
  readonly numLabels: number;
  readonly #begin: number;
  readonly #instances: InstanceLoss;
  #shared: SharedCorpus | null = null;
  #sweepWorkspace: SweepWorkspace | null | undefined = undefined;
  #classWeights: Float64Array | null = null;

  constructor(dataset: CompiledDataset, layout: FeatureLayout, range?: InstanceRange) {
    const begin = range?.begin ?? 0;
    const end = range?.end ?? dataset.numInstances;
    checkInstanceRange(begin, end, dataset.numInstances);
    this.dataset = dataset;
    this.layout = layout;
    this.numWeights = layout.numWeights;
    this.numLabels = layout.numLabels;
    this.numInstances = end - begin;
    this.#begin = begin;
    this.#instances = new InstanceLoss(dataset, layout);
  }

  /**
   * Constrained training: normalise every instance over the labellings the mask allows only, so
   * the loss is log Z_valid − score(gold) and forbidden transitions get no expected counts (their
   * weights feel only the regulariser). Every known gold transition, first and last label must
   * be allowed, else a RangeError names the sequence (1-based, in the encoder's dataset) and the
   * offending labels (by `labelNames` when given). `null` lifts the constraints.
   */
  setConstraints(constraints: TransitionMask | null, labelNames?: readonly string[]): void {
    this.#instances.masks =
      constraints === null
        ? NO_CONSTRAINTS
        : checkTrainingConstraints(
            constraints,
            this.numLabels,
            this.dataset,
            this.#begin,
            this.numInstances,
            labelNames,
          );
  }

  /**
   * Trains another structured loss on the same features (corro's Bregman CRF, mean field):
   * every loss and gradient then comes from `objective`. `null` restores the CRF's likelihood.
   * Worker threads rebuild the objective from its `source`; without one, set threads to 1.
   */
  setObjective(objective: SequenceObjective | null): void {
    this.#instances.objective = objective;
  }

  /**
   * Class weights (one per label id, > 0; null or all 1: none): the loss becomes the
   * cost-augmented (softmax-margin) likelihood in which a labelling that gets a token of gold
   * label g wrong has its score raised by log w_g, i.e. log Σ_y′ exp(s(y′) + Σ_j [y′_j ≠ g_j]·log
   * w_{g_j}) − s(g). It is convex, its gradient is the expectation under the augmented chain minus
   * the gold counts, and with every weight 1 it is the likelihood itself. Plug-in objectives see
   * the same augmented scores.
   */
  setClassWeights(weights: Float64Array | null): void {
    if (weights !== null && weights.length !== this.numLabels) {
      throw new RangeError(`class weights: ${weights.length} for ${this.numLabels} labels`);
    }
    // log w is the cost: a weight ≤ 0 or not finite would make every loss NaN or −∞ silently.
    const bad = weights?.findIndex((w) => !(w > 0 && Number.isFinite(w))) ?? -1;
    if (bad >= 0) {
      throw new RangeError(`class weights: label ${bad} has ${weights![bad]}; expected > 0`);
    }
    this.#classWeights = weights === null ? null : Float64Array.from(weights);
    this.#instances.labelCosts = mistakeCosts(weights);
  }

  /** The class weights in force (per label id), or null. */
  get classWeights(): Float64Array | null {
    return this.#classWeights;
  }

  /** The plug-in objective in force, or null for the CRF's likelihood. */
  get objective(): SequenceObjective | null {
    return this.#instances.objective;
  }

  /** Whether {@link setConstraints} put a mask in force. */
  get constrained(): boolean {
    return isConstrained(this.#instances.masks);
  }

  instanceLength(i: number): number {
    const g = this.#begin + i;
    return this.dataset.instanceOffsets[g + 1]! - this.dataset.instanceOffsets[g]!;
  }

  goldLabels(i: number): Int32Array {
    const g = this.#begin + i;
    return this.dataset.labels.subarray(
      this.dataset.instanceOffsets[g]!,
      this.dataset.instanceOffsets[g + 1]!,
    );
  }

  instanceLoss(i: number, weights: Float64Array, gradient: Float64Array | null, scale = 1): number {
    const g = this.#begin + i;
    const offsets = this.dataset.instanceOffsets;
    return this.#instances.loss(offsets[g]!, offsets[g + 1]!, weights, 1, gradient, scale);
  }

  /**
   * The loss under `weightScale × weights` (SGD keeps w = scale·v to make L2 decay O(1)); the
   * gradient, with respect to the scaled weights, is added after every read of `weights`, so
   * `gradient` may be `weights` itself.
   */
  instanceLossScaled(
    i: number,
    weights: Float64Array,
    weightScale: number,
    gradient: Float64Array,
    scale: number,
  ): number {
    const g = this.#begin + i;
    const offsets = this.dataset.instanceOffsets;
    return this.#instances.loss(
      offsets[g]!,
      offsets[g + 1]!,
      weights,
      weightScale,
      gradient,
      scale,
    );
  }

  decode(i: number, weights: Float64Array, out: Int32Array): number {
    const g = this.#begin + i;
    const offsets = this.dataset.instanceOffsets;
    const view = this.#instances.constrainedView(offsets[g]!, offsets[g + 1]!, weights);
    return viterbiKernel(this.#instances.ctx, view, out);
  }

  addFeatureCounts(
    i: number,
    labels: ArrayLike<number>,
    scale: number,
    target: Float64Array,
    positionScales?: ArrayLike<number>,
  ): void {
    const g = this.#begin + i;
    const offsets = this.dataset.instanceOffsets;
    addLabellingCounts(
      this.dataset,
      this.layout,
      offsets[g]!,
      offsets[g + 1]!,
      labels,
      scale,
      target,
      positionScales,
    );
  }

  /**
   * Σ_{i ∈ [begin, end)} instanceLoss(i, weights, gradient, scale): the same value and gradient
   * (up to summation order), computed in one batch. The batch copies the weights once into
   * WebAssembly memory that also holds this encoder's corpus, so the two sparse feature sweeps
   * (scoring, gradient) run there (~2.3× faster than the JavaScript loops); sentences with
   * unknown labels or observation-conditioned bigrams, real-valued attributes, and runtimes
   * without WebAssembly take the per-instance path. Trainers should prefer it for full passes.
   */
  rangeLoss(
    begin: number,
    end: number,
    weights: Float64Array,
    gradient: Float64Array,
    scale = 1,
    phaseSeconds: Float64Array | null = null,
  ): number {
    const pass = this.rangeLossPass(begin, end, weights, gradient, scale, phaseSeconds);
    pass.run(null);
    return pass.loss;
  }

  /**
   * {@link rangeLoss} as a pass that can stop between sentences and go on later with the same
   * value and gradient, bit for bit (see {@link LossPass}): a trainer on the main thread lets
   * the event loop turn (a signal's handler run) during a long evaluation. The encoder must not
   * be used otherwise until the pass is done.
   */
  rangeLossPass(
    begin: number,
    end: number,
    weights: Float64Array,
    gradient: Float64Array,
    scale = 1,
    phaseSeconds: Float64Array | null = null,
  ): LossPass {
    checkInstanceRange(begin, end, this.numInstances);
    const workspace = this.#workspace();
    if (workspace === null) return instanceLossPass(this, begin, end, weights, gradient, scale);
    return startSweepPass(
      workspace,
      this.#instances,
      this.#begin + begin,
      this.#begin + end,
      weights,
      gradient,
      scale,
      phaseSeconds,
    );
  }

  /** The batch path's workspace, built on first use; null (no WebAssembly, …) is kept too. */
  #workspace(): SweepWorkspace | null {
    if (this.#sweepWorkspace === undefined) {
      this.#sweepWorkspace = createSweepWorkspace(
        this.dataset,
        this.layout,
        this.#begin,
        this.numInstances,
      );
    }
    return this.#sweepWorkspace;
  }

  /** Plain data for {@link restoreEncoder}; the arrays are moved onto shared memory once. */
  descriptor(): CrfEncoderDescriptor {
    this.#shared ??= shareCorpus(this.dataset, this.layout);
    const end = this.#begin + this.numInstances;
    const plain = encoderDescriptor(this.#shared, this.#begin, end, this.#instances.masks);
    const weights = this.#classWeights;
    const descriptor = weights === null ? plain : { ...plain, classWeights: weights };
    const objective = this.#instances.objective;
    if (objective === null) return descriptor;
    if (objective.source === undefined) {
      throw new RangeError(
        `the ${objective.name} objective has no source for worker threads: train it with threads = 1`,
      );
    }
    return { ...descriptor, objective: objective.source };
  }
}

function checkInstanceRange(begin: number, end: number, size: number): void {
  if (
    !Number.isInteger(begin) ||
    !Number.isInteger(end) ||
    begin < 0 ||
    end < begin ||
    end > size
  ) {
    throw new RangeError(`instance range [${begin}, ${end}) is not inside [0, ${size})`);
  }
}

/**
 * Rebuilds an encoder from {@link CrfEncoder.descriptor} output (in a worker thread), over the
 * descriptor's instances or the sub-range `range` of them (relative indices).
 */
export function restoreEncoder(
  descriptor: CrfEncoderDescriptor,
  range?: InstanceRange,
): CrfEncoder {
  const encoder = new CrfEncoder(
    descriptor.dataset,
    descriptor.layout,
    restoredRange(descriptor, range),
  );
  if (descriptor.constraints !== undefined) encoder.setConstraints(descriptor.constraints);
  if (descriptor.classWeights !== undefined) encoder.setClassWeights(descriptor.classWeights);
  return encoder;
}
