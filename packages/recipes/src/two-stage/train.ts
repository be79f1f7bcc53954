/**
 * Two-stage training (Krishnan & Manning 2006): a first-stage chain CRF, jackknifed by documents,
 * tags the training data; the second stage is a CRF with the same features plus the first stage's
 * votes (the majority type of the same word and entity string elsewhere in the document and the
 * corpus). The second stage's model file embeds the first stage's, so tagging needs nothing else.
 */
import {
  type CrfModel,
  type FeatureSpec,
  featureExtractor,
  loadModelFromBytes,
  modelToBytes,
  NO_VOTE,
  type Preset,
  VOTE_KINDS,
} from "@lagrange/chain-crf";
import { LagrangeError, throwIfAborted } from "@lagrange/core";
import { type Corpus, inputRows, type Sentence } from "@lagrange/datasets";
import {
  appendFirstStageVotes,
  modelPreset,
  sentenceAttributes,
  votesFromLabels,
  withDocumentContext,
} from "../model-features.js";
import { modelDecodingConstraints, modelScheme } from "../model-scheme.js";
import { jackknifeFolds } from "../task-presets/mined-lexicons.js";
import { type TrainedOnCorpus, type TrainOnCorpusOptions, trainOnCorpus } from "../training.js";
import { withVoteColumns } from "./votes.js";

/** Default jackknife folds of the first stage. */
export const TWO_STAGE_FOLDS = 4;

/** Where two-stage training is: a first-stage CRF (fold k of K, or the full one), or the second. */
export type TwoStageStage =
  | { readonly stage: "first"; readonly fold: number; readonly folds: number }
  | { readonly stage: "first-full"; readonly folds: number }
  | { readonly stage: "second"; readonly folds: number };

/** Trains one first-stage CRF on `corpus` (`fold`: the fold left out, or null for the full one). */
export type FirstStageTrainer = (
  corpus: Corpus,
  options: TrainOnCorpusOptions,
  fold: number | null,
) => Promise<CrfModel>;

export interface TwoStageOptions extends TrainOnCorpusOptions {
  /**
   * Jackknife folds of the first stage (default 4), whole documents to a fold (data without
   * documents: blocks of 20 sentences). A `jackknife` (mined lexicons) must use the same folds:
   * its fold array is taken as it is.
   */
  readonly folds?: number;
  /** Called as each CRF starts (the iterations go to `onProgress`, as trainOnCorpus's). */
  readonly onStage?: (stage: TwoStageStage) => void;
  /** Trains a first-stage CRF (default trainOnCorpus's model); tests pass a recording stub. */
  readonly trainFirstStage?: FirstStageTrainer;
}

export interface TrainedTwoStage extends TrainedOnCorpus {
  /** The first stage trained on all the data (embedded in `model`). */
  readonly firstStage: CrfModel;
  readonly folds: number;
  /** Seconds spent on the first stages (the K fold CRFs, the full one, tagging). */
  readonly firstStageSeconds: number;
  /** Training tokens with a vote of each kind (not NO_VOTE), for the user. */
  readonly voted: { readonly dtok: number; readonly dent: number; readonly ctok: number };
}

const defaultTrainer: FirstStageTrainer = async (corpus, options) =>
  (await trainOnCorpus(corpus, options)).model;

/**
 * Trains a two-stage model: K first-stage CRFs, each on all folds but one, tag the fold they did
 * not see (a training sentence's votes come from a CRF that never saw its document, so the second
 * stage learns how far votes are worth trusting on unseen text); a first stage on all the data
 * (what tagging runs); the second stage on the data with the votes appended. The model is the
 * second stage with the full first stage's model bytes embedded.
 */
export async function trainTwoStage(
  corpus: Corpus,
  options: TwoStageOptions,
): Promise<TrainedTwoStage> {
  const { folds: asked, onStage, trainFirstStage, attributes: _, dev, patience, ...crf } = options;
  const { signal, jackknife } = options;
  const started = performance.now();
  const sentences = corpus.sentences;
  const K = jackknife === undefined ? (asked ?? TWO_STAGE_FOLDS) : jackknife.specs.length;
  if (!Number.isInteger(K) || K < 2) {
    throw new LagrangeError(
      "usage",
      `two-stage training jackknifes its first stage over at least 2 folds; got ${K}`,
    );
  }
  if (jackknife !== undefined && asked !== undefined && asked !== K) {
    throw new LagrangeError(
      "usage",
      `the mined lexicons are jackknifed over ${K} folds; the first stage must use the same folds (got ${asked})`,
    );
  }
  const fold = jackknife?.fold ?? jackknifeFolds(sentences, K);
  // The first stage's own input: with document context where its features read it.
  const read = withDocumentContext(options.features, sentences);
  const train = trainFirstStage ?? defaultTrainer;
  const labels: string[][] = new Array(sentences.length);
  for (let f = 0; f < K; f++) {
    throwIfAborted(signal);
    onStage?.({ stage: "first", fold: f, folds: K });
    const keep = sentences.flatMap((_, i) => (fold[i] !== f ? [i] : []));
    if (keep.length === 0 || keep.length === sentences.length) {
      throw new LagrangeError(
        "bad-input",
        `${corpus.label}: fold ${f + 1} of ${K} is ${keep.length === 0 ? "everything" : "empty"}: two-stage training needs at least ${K} documents (or blocks of 20 sentences); use fewer --folds`,
      );
    }
    const model = await train(
      { ...corpus, sentences: keep.map((i) => sentences[i]!) },
      {
        ...crf,
        ...(jackknife === undefined
          ? {}
          : {
              jackknife: { fold: Int32Array.from(keep, (i) => fold[i]!), specs: jackknife.specs },
            }),
      },
      f,
    );
    // The fold's own lexicons (mined without it) where there are such; else the model's features.
    const extractor: Preset =
      jackknife === undefined ? modelPreset(model) : featureExtractor(jackknife.specs[f]!);
    const constraints = modelDecodingConstraints(model);
    for (let i = 0; i < sentences.length; i++) {
      if (fold[i] !== f) continue;
      labels[i] = model.tag(sentenceAttributes(extractor, read[i]!), { constraints });
    }
  }
  throwIfAborted(signal);
  onStage?.({ stage: "first-full", folds: K });
  const fullFirst = await train(corpus, crf, null);
  const firstBytes = modelToBytes(fullFirst);
  const scheme = modelScheme(fullFirst);
  const votes = votesFromLabels(sentences, labels, scheme);
  const voted: Sentence[] = sentences.map((s, i) => withVoteColumns(s, votes[i]!));
  const count = (kind: "dtok" | "dent" | "ctok") =>
    votes.reduce((n, v) => n + v[kind].filter((x) => x !== NO_VOTE).length, 0);
  const first = sentences[0] === undefined ? 0 : (inputRows(sentences[0])[0]?.length ?? 0);
  // The features read the rows without their dense columns: the votes come right after the rest.
  // Document context, where the features read it, is appended after the votes.
  const secondSpec = (spec: FeatureSpec | undefined): FeatureSpec => {
    const votesAt = first - (spec?.dense?.columns.length ?? 0);
    return {
      ...(spec ?? { base: options.preset }),
      votes: { first: votesAt },
      ...(spec?.context === undefined ? {} : { context: { first: votesAt + VOTE_KINDS.length } }),
    };
  };
  // Held-out data is tagged by the full first stage as it is stored, as tagging will.
  const devVoted: Corpus | undefined =
    dev === undefined
      ? undefined
      : {
          ...dev,
          sentences: [
            ...(await appendFirstStageVotes(
              loadModelFromBytes(firstBytes),
              dev.sentences,
              signal === undefined ? {} : { signal },
            )),
          ],
        };
  const firstStageSeconds = (performance.now() - started) / 1000;
  throwIfAborted(signal);
  onStage?.({ stage: "second", folds: K });
  const result = await trainOnCorpus(
    { ...corpus, sentences: voted },
    {
      ...crf,
      features: secondSpec(options.features),
      ...(jackknife === undefined
        ? {}
        : { jackknife: { fold, specs: jackknife.specs.map((s) => secondSpec(s)) } }),
      ...(devVoted === undefined ? {} : { dev: devVoted }),
      ...(patience === undefined ? {} : { patience }),
      settings: {
        ...options.settings,
        inputColumns: first,
        twoStage: { folds: K, votes: [...VOTE_KINDS] },
      },
    },
  );
  return {
    ...result,
    model: result.model.withFirstStage(firstBytes),
    firstStage: fullFirst,
    folds: K,
    firstStageSeconds,
    voted: { dtok: count("dtok"), dent: count("dent"), ctok: count("ctok") },
  };
}
