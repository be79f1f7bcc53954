import {
  type AttributeSequence,
  getPreset,
  type TrainCrfOptions,
  type TrainCrfResult,
  trainCrf,
} from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import {
  type Corpus,
  decodingMask,
  evaluateChunks,
  evaluateSegments,
  evaluateTokens,
  inputRows,
  type LabelScheme,
  requireScheme,
  type SchemeCheck,
} from "@lagrange/datasets";

export interface TrainOnCorpusOptions
  extends Omit<TrainCrfOptions, "constraintsFor" | "heldOut" | "preset" | "labels"> {
  /** Feature preset name (chunking, ner, citation, pos). */
  readonly preset: string;
  /** Default: the corpus's own scheme (catalogue, format, or read off its labels). */
  readonly scheme?: LabelScheme;
  /** Held-out data evaluated during training (F1 under the scheme, token accuracy). */
  readonly dev?: Corpus;
  /** Early stopping: evaluations without held-out improvement. */
  readonly patience?: number;
  /** The preset's attributes of the corpus, when the caller has them already (a cache key). */
  readonly attributes?: readonly AttributeSequence[];
}

export interface TrainedOnCorpus extends TrainCrfResult {
  readonly scheme: LabelScheme;
  /** The gold sequences checked against the scheme (a few invalid ones are tolerated). */
  readonly schemeCheck: SchemeCheck;
}

/** Precision/recall/F1 under a scheme, or token accuracy alone for plain tags. */
export function schemeScorer(scheme: LabelScheme) {
  return (gold: readonly (readonly string[])[], predicted: readonly (readonly string[])[]) => {
    if (scheme === "none") return { tokenAccuracy: evaluateTokens(gold, predicted).accuracy };
    const e =
      scheme === "hierarchical-BIO"
        ? evaluateSegments(gold, predicted)
        : evaluateChunks(gold, predicted);
    return { tokenAccuracy: e.tokenAccuracy, f1: e.f1 };
  };
}

/**
 * Trains a chain CRF on a corpus under a label scheme: the gold labels are checked against the
 * scheme first (more than a few invalid sequences stop training with the scheme that fits them),
 * decoding — held-out evaluation included — honours the scheme's mask, and the model file records
 * the scheme and the data. The path behind `lagrange train`, the demo and the bench.
 */
export async function trainOnCorpus(
  corpus: Corpus,
  options: TrainOnCorpusOptions,
): Promise<TrainedOnCorpus> {
  const {
    preset: presetName,
    scheme: given,
    dev,
    patience,
    settings,
    attributes,
    ...rest
  } = options;
  const preset = getPreset(presetName);
  const scheme = given ?? corpus.scheme;
  const gold = corpus.sentences.map((s, i) => {
    if (s.labels === undefined) {
      throw new LagrangeError(
        "bad-input",
        `${corpus.label}: sentence ${i + 1} has no labels to train on`,
      );
    }
    return s.labels;
  });
  const schemeCheck = requireScheme(gold, scheme, corpus.label);
  const sequences = corpus.sentences.map((s, i) => ({
    attributes: attributes?.[i] ?? preset.extract(inputRows(s)),
    labels: gold[i]!,
  }));
  const heldOut =
    dev === undefined
      ? undefined
      : {
          sequences: dev.sentences.map((s, i) => {
            if (s.labels === undefined) {
              throw new LagrangeError(
                "bad-input",
                `${dev.label}: sentence ${i + 1} has no labels to evaluate against`,
              );
            }
            return { attributes: preset.extract(inputRows(s)), labels: s.labels };
          }),
          score: schemeScorer(scheme),
          ...(patience === undefined ? {} : { patience }),
        };
  const result = await trainCrf(sequences, {
    ...rest,
    ...(heldOut === undefined ? {} : { heldOut }),
    constraintsFor: (labels) => decodingMask(labels, scheme) ?? {},
    ...(options.constrainedTraining === true && scheme !== "none"
      ? { constrainedTraining: true }
      : { constrainedTraining: false }),
    preset: presetName,
    settings: { scheme, data: corpus.label, ...settings },
  });
  return { ...result, scheme, schemeCheck };
}
