import {
  fromAttributeLists,
  type LabelledSequence,
  type TrainCrfOptions,
  trainCrf,
} from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import {
  type CrfsuiteInstance,
  decodingMask,
  inferScheme,
  type LabelScheme,
  requireScheme,
  type SchemeCheck,
  type SequenceLocator,
} from "@lagrange/datasets";
import { definedFields } from "./training/defined-fields.js";
import { requireProgress, schemeScorer, type TrainedOnCorpus } from "./training.js";

/** Sequences read from CRFsuite's data format (`label TAB name[:value] …`), and what to call them. */
export interface CrfsuiteCorpus {
  /** A path, for messages and the model's settings. */
  readonly label: string;
  readonly instances: readonly CrfsuiteInstance[];
}

export interface TrainOnCrfsuiteOptions
  extends Omit<TrainCrfOptions, "constraintsFor" | "heldOut" | "preset" | "startEnd"> {
  /** Default: the scheme read off the gold labels (IOB2, BIOES, …, or none for plain tags). */
  readonly scheme?: LabelScheme;
  /** Held-out sequences evaluated during training, in the same format. */
  readonly dev?: CrfsuiteCorpus;
  /** Early stopping: evaluations without held-out improvement. */
  readonly patience?: number;
  /** Return a model even when training made no progress (see trainOnCorpus). */
  readonly allowNoProgress?: boolean;
}

export interface TrainedOnCrfsuite extends Omit<TrainedOnCorpus, "partialSentences"> {
  readonly scheme: LabelScheme;
  readonly schemeCheck: SchemeCheck;
}

/**
 * Trains a chain CRF on CRFsuite's data format, the attributes as they are: no preset, each
 * attribute's value (`name:value`, 1 when absent) scaling its weight in every score, as in
 * CRFsuite. The model is CRFsuite's class (no first/last-label weights, preset null): `lagrange
 * tag --format crfsuite` tags with it, and it exports to a CRFsuite model file unchanged. Decoding
 * honours the labels' scheme, as {@link trainOnCorpus} does.
 */
export async function trainOnCrfsuite(
  corpus: CrfsuiteCorpus,
  options: TrainOnCrfsuiteOptions,
): Promise<TrainedOnCrfsuite> {
  const { scheme: given, dev, patience, settings, allowNoProgress, ...rest } = options;
  if (options.objective !== undefined && options.algorithm === "ap") {
    throw new LagrangeError(
      "usage",
      `the ${options.objective.name} objective is a loss to minimise; the averaged perceptron (ap) minimises none: use lbfgs, owlqn or sgd`,
    );
  }
  const sequences = labelledSequences(corpus);
  const gold = corpus.instances.map((i) => i.labels);
  const seen = new Set(gold.flat());
  if (seen.size < 2) {
    throw new LagrangeError(
      "bad-input",
      `${placeOf(corpus)(0, 0)}: the gold labels hold ${seen.size === 0 ? "no label" : `only the label ${JSON.stringify([...seen][0])}`}; a model needs at least two labels`,
    );
  }
  const scheme = given ?? inferScheme(gold);
  const schemeCheck = requireScheme(gold, scheme, corpus.label, placeOf(corpus));
  let heldOut: TrainCrfOptions["heldOut"];
  if (dev !== undefined) {
    const devGold = dev.instances.map((i) => i.labels);
    requireScheme(devGold, scheme, dev.label, placeOf(dev));
    heldOut = {
      sequences: labelledSequences(dev),
      score: schemeScorer(scheme),
      ...definedFields({ patience }),
    };
  }
  const result = await trainCrf(sequences, {
    ...rest,
    ...definedFields({ heldOut }),
    constraintsFor: (labels) => decodingMask(labels, scheme) ?? {},
    constrainedTraining: options.constrainedTraining === true && scheme !== "none",
    // CRFsuite's model class: it has no weights for the first and last label.
    startEnd: false,
    preset: null,
    settings: { scheme, data: corpus.label, format: "crfsuite", ...settings },
  });
  if (allowNoProgress !== true) requireProgress(result);
  return { ...result, scheme, schemeCheck, heldOutExcluded: 0 };
}

/** Where item `position` of sequence `sequence` is: one item a line from the sequence's first. */
function placeOf(corpus: CrfsuiteCorpus): SequenceLocator {
  return (sequence, position) => {
    const source = corpus.instances[sequence]?.source;
    return source === undefined
      ? `${corpus.label}: sequence ${sequence + 1}, item ${position + 1}`
      : `${source.file}:${source.line + position}`;
  };
}

function labelledSequences(corpus: CrfsuiteCorpus): LabelledSequence[] {
  return corpus.instances.map((instance, s) => {
    if (instance.weight !== undefined) {
      // The trainers weigh every sequence alike: a weight read and then ignored would be a lie.
      throw new LagrangeError(
        "bad-input",
        `${placeOf(corpus)(s, 0)}: @weight:${instance.weight}: instance weights are not supported in training; remove the declaration (every sequence counts once)`,
      );
    }
    return { attributes: fromAttributeLists(instance.items), labels: instance.labels };
  });
}
