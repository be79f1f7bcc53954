import type { TransitionMask } from "@lagrange/core";
/**
 * Moving an encoder to worker threads: the descriptor a worker rebuilds it from, with the corpus
 * and layout on SharedArrayBuffers so that posting it copies nothing.
 */
import { toSharedFloat64, toSharedInt32 } from "../model/buffers.js";
import type { CompiledAttributes, CompiledDataset } from "../model/dataset.js";
import type { FeatureLayout } from "../model/layout.js";
import { type ConstraintMasks, isConstrained, toTrainingConstraints } from "./constraints.js";
import type { ObjectiveSource } from "./objective.js";

/** A sub-range of an encoder's instances, relative to it. */
export interface InstanceRange {
  readonly begin: number;
  readonly end: number;
}

/**
 * Plain, structured-clonable data from which {@link restoreEncoder} rebuilds an encoder in a
 * worker thread. Its typed arrays live on SharedArrayBuffers, so posting it copies nothing.
 */
export interface CrfEncoderDescriptor {
  readonly kind: "lagrange.chain-crf.encoder";
  readonly version: 1;
  readonly dataset: CompiledDataset;
  readonly layout: FeatureLayout;
  /** The instances [begin, end) of `dataset` this encoder covers. */
  readonly begin: number;
  readonly end: number;
  /** Constrained training: the mask every instance is normalised under (small; copied). */
  readonly constraints?: TransitionMask;
  /** Class weights per label id (small; copied). */
  readonly classWeights?: Float64Array;
  /** A plug-in training objective, rebuilt in the worker by the pool (not by restoreEncoder). */
  readonly objective?: ObjectiveSource;
}

/** A corpus and its layout with every array on shared memory. */
export interface SharedCorpus {
  readonly dataset: CompiledDataset;
  readonly layout: FeatureLayout;
}

export function shareCorpus(dataset: CompiledDataset, layout: FeatureLayout): SharedCorpus {
  return { dataset: shareDataset(dataset), layout: shareLayout(layout) };
}

export function encoderDescriptor(
  shared: SharedCorpus,
  begin: number,
  end: number,
  masks: ConstraintMasks,
): CrfEncoderDescriptor {
  return {
    kind: "lagrange.chain-crf.encoder",
    version: 1,
    dataset: shared.dataset,
    layout: shared.layout,
    begin,
    end,
    ...(isConstrained(masks) ? { constraints: toTrainingConstraints(masks) } : {}),
  };
}

/**
 * The instances of `dataset` an encoder restored from `descriptor` covers: all of the
 * descriptor's, or the sub-range `range` of them (relative indices). Throws on anything else.
 */
export function restoredRange(
  descriptor: CrfEncoderDescriptor,
  range: InstanceRange | undefined,
): InstanceRange {
  if (descriptor.kind !== "lagrange.chain-crf.encoder" || descriptor.version !== 1) {
    throw new Error(
      `not a chain-crf encoder descriptor (kind ${String(descriptor.kind)}, version ${String(descriptor.version)})`,
    );
  }
  const size = descriptor.end - descriptor.begin;
  const begin = range?.begin ?? 0;
  const end = range?.end ?? size;
  if (begin < 0 || end < begin || end > size) {
    throw new RangeError(`instance range [${begin}, ${end}) is not inside [0, ${size})`);
  }
  return { begin: descriptor.begin + begin, end: descriptor.begin + end };
}

function shareAttributes(a: CompiledAttributes): CompiledAttributes {
  return {
    offsets: toSharedInt32(a.offsets),
    ids: toSharedInt32(a.ids),
    values: a.values === null ? null : toSharedFloat64(a.values),
  };
}

function shareDataset(ds: CompiledDataset): CompiledDataset {
  return {
    numInstances: ds.numInstances,
    numTokens: ds.numTokens,
    maxLength: ds.maxLength,
    instanceOffsets: toSharedInt32(ds.instanceOffsets),
    state: shareAttributes(ds.state),
    transition: ds.transition === null ? null : shareAttributes(ds.transition),
    labels: toSharedInt32(ds.labels),
    labelSets:
      ds.labelSets == null
        ? null
        : { offsets: toSharedInt32(ds.labelSets.offsets), ids: toSharedInt32(ds.labelSets.ids) },
  };
}

function shareLayout(layout: FeatureLayout): FeatureLayout {
  return {
    ...layout,
    attributeOffsets: toSharedInt32(layout.attributeOffsets),
    featureLabels: toSharedInt32(layout.featureLabels),
    transitionAttributeOffsets: toSharedInt32(layout.transitionAttributeOffsets),
    transitionFeaturePairs: toSharedInt32(layout.transitionFeaturePairs),
  };
}
