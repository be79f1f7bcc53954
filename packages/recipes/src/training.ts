import {
  type AttributeSequence,
  type CrfModel,
  type FeatureSpec,
  featureExtractor,
  getPreset,
  type LabelledSequence,
  type TrainCrfOptions,
  type TrainCrfResult,
  trainCrf,
} from "@lagrange/chain-crf";
import { checkpoints, type JsonValue, LagrangeError } from "@lagrange/core";
import {
  type Corpus,
  convertScheme,
  corpusLocator,
  decodingMask,
  evaluateChunks,
  evaluateSegments,
  evaluateTokens,
  inputRows,
  isFullyLabelled,
  isPartialLabelCell,
  type LabelScheme,
  type PartialLabel,
  parsePartialLabel,
  requireScheme,
  SCHEME_NAMES,
  type SchemeCheck,
  type SchemeName,
  type Sentence,
  tokenPlace,
} from "@lagrange/datasets";
import { requireContinuable } from "./continued-training.js";
import { sentenceAttributes, withDocumentContext } from "./model-features.js";
import { definedFields } from "./training/defined-fields.js";

export interface TrainOnCorpusOptions
  extends Omit<TrainCrfOptions, "constraintsFor" | "heldOut" | "preset" | "init"> {
  /**
   * Continued training from this model (see `continuedTraining` for its features and scheme):
   * its labels, attributes and weights are kept, the corpus's new ones added.
   */
  readonly init?: CrfModel;
  /** Feature preset name (chunking, ner, ner-words, citation, pos), or the base of `features`. */
  readonly preset: string;
  /**
   * The features when more than a named preset: a base preset or CRF++ template over a column
   * layout, with embedded clusters and lexicons. The model records it (`settings.features`).
   */
  readonly features?: FeatureSpec;
  /**
   * Jackknifed features (a lexicon mined from the training labels): sentence i's attributes come
   * from `specs[fold[i]]`, whose mined entries left fold[i] out; the model records `features`.
   */
  readonly jackknife?: { readonly fold: Int32Array; readonly specs: readonly FeatureSpec[] };
  /** Default: the corpus's own scheme (catalogue, format, or read off its labels). */
  readonly scheme?: LabelScheme;
  /**
   * Train under this scheme instead (a NER task preset's BIOES: Ratinov & Roth 2009 measured it
   * above BIO): the gold labels, train's and the held-out data's, are converted to it from
   * `scheme`, the model records it as `settings.scheme` and `scheme` as `settings.outputScheme`,
   * and taggers convert their output back (recipes' `schemeEdge`). Ignored when it is `scheme`.
   */
  readonly internalScheme?: SchemeName;
  /** Held-out data evaluated during training (F1 under the scheme, token accuracy). */
  readonly dev?: Corpus;
  /** Early stopping: evaluations without held-out improvement. */
  readonly patience?: number;
  /** Evaluate `dev` every this many iterations (default 1). */
  readonly heldOutEvery?: number;
  /** The preset's attributes of the corpus, when the caller has them already (a cache key). */
  readonly attributes?: readonly AttributeSequence[];
  /**
   * Return a model even when training made no progress (0 iterations, or a non-finite loss);
   * by default that is a {@link TrainingFailedError}, since the model would be the untrained one.
   */
  readonly allowNoProgress?: boolean;
  /**
   * Read the gold label column as partial annotations (datasets' `parsePartialLabel`): `?` an
   * unknown label, `{B-PER,I-PER}` the labels a token is restricted to; training marginalises over
   * the labellings they allow (the CRF likelihood and the bcrf objective can; mean field and the
   * perceptron cannot, a `usage` error). Held-out sentences with partial labels are left out of the
   * evaluation. Without it such a cell is a `bad-input` error at its file:line, never a label "?".
   */
  readonly partialLabels?: boolean;
}

/** Training ran but produced no usable model: it made no step, or its loss diverged. */
export class TrainingFailedError extends Error {
  override readonly name = "TrainingFailedError";
}

export interface TrainedOnCorpus extends TrainCrfResult {
  readonly scheme: LabelScheme;
  /** The gold sequences checked against the scheme (a few invalid ones are tolerated). */
  readonly schemeCheck: SchemeCheck;
  /** Training sentences with an unknown label or a label set (0 without `partialLabels`). */
  readonly partialSentences: number;
  /** Held-out sentences with partial labels, left out of the held-out evaluation. */
  readonly heldOutExcluded: number;
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
    heldOutEvery,
    settings,
    attributes,
    allowNoProgress,
    partialLabels,
    features,
    jackknife,
    internalScheme,
    ...rest
  } = options;
  const preset = features === undefined ? getPreset(presetName) : featureExtractor(features);
  if (jackknife !== undefined && jackknife.fold.length !== corpus.sentences.length) {
    // The folds index another corpus (a subset's sentences would take other sentences' folds, and
    // mined entries would leak into their own training features).
    throw new LagrangeError(
      "usage",
      `jackknife folds cover ${jackknife.fold.length} sentences; ${corpus.label} has ${corpus.sentences.length}: resolve the features on the corpus trained on`,
    );
  }
  if (options.init !== undefined) requireContinuable(options.init, presetName);
  const foldExtractors = jackknife?.specs.map(featureExtractor);
  if (options.objective !== undefined && options.algorithm === "ap") {
    // The perceptron never evaluates a loss: the model file would name an objective it never saw.
    throw new LagrangeError(
      "usage",
      `the ${options.objective.name} objective is a loss to minimise; the averaged perceptron (ap) minimises none: use lbfgs, owlqn or sgd`,
    );
  }
  const scheme = given ?? corpus.scheme;
  const partial = partialLabels === true;
  const gold = goldLabels(corpus, "to train on", partial);
  const partialSentences = gold.filter((labels) => !isFullyLabelled(labels)).length;
  if (partialSentences > 0) requirePartialTraining(corpus, gold, options);
  requireSeveralLabels(corpus, gold);
  const schemeCheck = requireScheme(gold, scheme, corpus.label, corpusLocator(corpus));
  const internal = internalSchemeOf(scheme, internalScheme, partialSentences > 0);
  const trained = internal === undefined ? scheme : internal.to;
  if (internal !== undefined) {
    for (const [i, labels] of gold.entries()) gold[i] = internal.convert(labels as string[]);
  }
  // Feature extraction takes seconds on a large corpus: a signal's handler must run meanwhile.
  const checkpoint = checkpoints(options.signal);
  const sequences: LabelledSequence[] = [];
  // Document context is computed over the corpus's documents, as tagging computes it over its input.
  const read = withDocumentContext(features, corpus.sentences);
  for (const [i, s] of read.entries()) {
    if (checkpoint.due()) await checkpoint.pause();
    sequences.push({
      attributes:
        attributes?.[i] ??
        sentenceAttributes(
          foldExtractors === undefined ? preset : foldExtractors[jackknife!.fold[i]!]!,
          s,
        ),
      labels: gold[i]!,
    });
  }
  let heldOut: TrainCrfOptions["heldOut"];
  let heldOutExcluded = 0;
  if (dev !== undefined) {
    const devGold = goldLabels(dev, "to evaluate against", partial);
    requireScheme(devGold, scheme, dev.label, corpusLocator(dev));
    if (internal !== undefined) {
      for (const [i, labels] of devGold.entries()) {
        if (isFullyLabelled(labels)) devGold[i] = internal.convert(labels as string[]);
      }
    }
    // Scores against partial gold would count every unknown label as a mistake (or a hit).
    const devRead = withDocumentContext(features, dev.sentences);
    const full = devRead.flatMap((sentence, i) => {
      const labels = devGold[i]!;
      return isFullyLabelled(labels) ? [{ sentence, labels }] : [];
    });
    heldOutExcluded = dev.sentences.length - full.length;
    if (full.length > 0) {
      heldOut = {
        sequences: full.map(({ sentence, labels }) => ({
          attributes: sentenceAttributes(preset, sentence),
          labels,
        })),
        score: schemeScorer(trained),
        ...definedFields({ patience, every: heldOutEvery }),
      };
    }
  }
  const first = corpus.sentences[0];
  const inputColumns = first === undefined ? undefined : inputRows(first)[0]?.length;
  const result = await trainCrf(sequences, {
    ...rest,
    ...definedFields({ heldOut }),
    constraintsFor: (labels) => decodingMask(labels, trained) ?? {},
    ...(options.constrainedTraining === true && trained !== "none"
      ? { constrainedTraining: true }
      : { constrainedTraining: false }),
    preset: presetName,
    settings: {
      scheme: trained,
      ...(internal === undefined ? {} : { outputScheme: scheme }),
      data: corpus.label,
      format: corpus.format,
      ...definedFields({ inputColumns, features: features as unknown as JsonValue | undefined }),
      ...settings,
    },
  });
  // A model to continue can already sit at the optimum: no step is then no failure.
  const atOptimum = options.init !== undefined && Number.isFinite(result.loss);
  if (allowNoProgress !== true && !atOptimum) requireProgress(result);
  return { ...result, scheme, schemeCheck, partialSentences, heldOutExcluded };
}

const BIOES_LIKE: ReadonlySet<string> = new Set(["BIOES", "BILOU"]);

/**
 * How gold labels under `scheme` become the internal scheme's, or undefined where nothing changes.
 * Only a flat chunk scheme converts (its spans are what both schemes write); partial labels name
 * labels of the data's scheme token by token, which no conversion can carry.
 */
function internalSchemeOf(
  scheme: LabelScheme,
  internal: SchemeName | undefined,
  partial: boolean,
): { to: SchemeName; convert: (labels: string[]) => string[] } | undefined {
  if (internal === undefined || internal === scheme) return undefined;
  // The same scheme up to names: the data's labels are kept.
  if (BIOES_LIKE.has(internal) && BIOES_LIKE.has(scheme)) return undefined;
  const from = (SCHEME_NAMES as readonly string[]).includes(scheme)
    ? (scheme as SchemeName)
    : undefined;
  if (from === undefined || partial) {
    throw new LagrangeError(
      "usage",
      `training under the internal scheme ${internal} converts the gold labels' chunks; ${partial ? "partial labels" : `scheme ${scheme}`} cannot be converted: train under the data's scheme (--internal-scheme keep)`,
    );
  }
  return { to: internal, convert: (labels) => convertScheme(labels, from, internal) };
}

/**
 * The gold labels of every sentence. Partial-annotation cells (`?`, `{…}`) are read as such with
 * `partial`, and refused without it: a model with a label named "?" would be silently wrong.
 */
export function goldLabels(corpus: Corpus, purpose: string, partial: boolean): PartialLabel[][] {
  return corpus.sentences.map((s) => {
    if (s.labels === undefined) {
      throw new LagrangeError(
        "bad-input",
        `${tokenPlace(s, 0)}: no gold label column ${purpose} (${corpus.label} has ${s.columns.length} column(s); the gold label comes last)`,
      );
    }
    const at = s.labels.findIndex(isPartialLabelCell);
    if (at < 0) return s.labels;
    if (!partial) {
      throw new LagrangeError(
        "bad-input",
        `${tokenPlace(s, at)}: gold label ${JSON.stringify(s.labels[at])} is a partial annotation (? an unknown label, {A,B,…} a set of allowed labels); train with --partial to read it so`,
      );
    }
    return s.labels.map((cell, t) =>
      isPartialLabelCell(cell) ? parsePartialLabel(cell, tokenPlace(s, t)) : cell,
    );
  });
}

/** Partial labels need a trainer that marginalises over what they allow. */
function requirePartialTraining(
  corpus: Corpus,
  gold: readonly (readonly PartialLabel[])[],
  options: TrainOnCorpusOptions,
): void {
  const index = gold.findIndex((labels) => !isFullyLabelled(labels));
  const sentence: Sentence = corpus.sentences[index]!;
  const place = tokenPlace(
    sentence,
    gold[index]!.findIndex((l) => typeof l !== "string"),
  );
  if (options.algorithm === "ap") {
    throw new LagrangeError(
      "usage",
      `${place}: partial labels need a trainer that marginalises over them; the averaged perceptron (ap) updates towards one full labelling: use lbfgs, owlqn or sgd`,
    );
  }
  const objective = options.objective;
  if (objective !== undefined && !objective.partialLabels) {
    throw new LagrangeError(
      "usage",
      `${place}: the ${objective.name} objective cannot train on partial labels (unknown labels, label sets); use the CRF likelihood or bcrf`,
    );
  }
}

/**
 * A model over one label predicts it everywhere: the data was read in the wrong format (CoNLL
 * columns read as UMass citations give every token `O`) or holds no annotation.
 */
export function requireSeveralLabels(
  corpus: Corpus,
  gold: readonly (readonly PartialLabel[])[],
): void {
  const seen = new Set<string>();
  for (const labels of gold) {
    for (const label of labels) {
      for (const name of typeof label === "string" ? [label] : (label ?? [])) seen.add(name);
      if (seen.size > 1) return;
    }
  }
  const only = seen.size === 0 ? "no label" : `only the label ${JSON.stringify([...seen][0])}`;
  const where =
    corpus.sentences[0] === undefined ? corpus.label : tokenPlace(corpus.sentences[0], 0);
  throw new LagrangeError(
    "bad-input",
    `${where}: the gold labels hold ${only} (read as ${corpus.format}); a model needs at least two labels${corpus.format === "umass" || corpus.format === "inline" ? ": no field tags were found, so is the format right (--format)?" : ""}`,
  );
}

/** Refuses a result whose training made no step or diverged (a model no better than untrained). */
export function requireProgress(result: TrainCrfResult): void {
  if (result.iterations === 0) {
    throw new TrainingFailedError(
      `training stopped after 0 iterations (${result.stopReason}): the model would be the untrained one; check the regularisation (--c1, --c2) and the data, or allow it explicitly`,
    );
  }
  if (!Number.isFinite(result.loss)) {
    throw new TrainingFailedError(
      `training diverged: the loss is ${result.loss} after ${result.iterations} iterations; lower the learning rate or the regularisation`,
    );
  }
}
