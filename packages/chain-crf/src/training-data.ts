import { LabelSet, ProblemValidationError } from "@lagrange/core";
import { CrfEncoder } from "./crf-encoder.js";
import { type CompiledDataset, compileDataset, type LabelledSequence } from "./model/dataset.js";
import {
  AttributeFrequencyError,
  buildAttributeDictionary,
  countAttributes,
  NoStateAttributesError,
} from "./model/dictionary.js";
import { buildFeatureLayout, type FeatureLayout, type LayoutOptions } from "./model/layout.js";
import { type InitialModel, unionDictionary, warmStart } from "./model/warm-start.js";

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
