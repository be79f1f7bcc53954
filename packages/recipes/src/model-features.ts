/**
 * What a model reads of a sentence (its preset's attributes), with no file system: the part of
 * model input that the browser entry's pipelines use too. `model-input.ts` adds corpora.
 */
import {
  type AttributeSequence,
  type CrfModel,
  documentContextColumns,
  FeatureInputError,
  type FeatureSpec,
  featureExtractor,
  firstStageModel,
  getPreset,
  type Preset,
  parseFeatureSpec,
} from "@lagrange/chain-crf";
import { checkpoints, LagrangeError, throwIfAborted } from "@lagrange/core";
import { inputRows, type Sentence, tokenPlace } from "@lagrange/datasets";
import { modelDecodingConstraints, modelScheme } from "./model-scheme.js";
import {
  appendColumns,
  computeVotes,
  entitiesOf,
  type SentenceVotes,
  voteDocuments,
  withVoteColumns,
} from "./two-stage/votes.js";

const extractors = new WeakMap<CrfModel, Preset>();

/**
 * The feature spec a model records (`settings.features`: base preset or template, column layout,
 * embedded clusters and lexicons), or null for a model that names a preset alone.
 */
export function modelFeatureSpec(model: CrfModel): FeatureSpec | null {
  const recorded = model.settings.features;
  if (recorded === undefined || recorded === null) return null;
  if (typeof recorded !== "object") return parseFeatureSpec(recorded, "the model's settings");
  // Checking the spec walks every embedded cluster word and lexicon entry (tens of thousands),
  // and tagging asks for it on every call (document inputs, the text check): once per object.
  let spec = checkedSpecs.get(recorded);
  if (spec === undefined) {
    spec = parseFeatureSpec(recorded, "the model's settings");
    checkedSpecs.set(recorded, spec);
  }
  return spec;
}

const checkedSpecs = new WeakMap<object, FeatureSpec>();

/** The feature extractor a model was trained with (its file records the preset or the spec). */
export function modelPreset(model: CrfModel): Preset {
  const cached = extractors.get(model);
  if (cached !== undefined) return cached;
  const spec = modelFeatureSpec(model);
  let extractor: Preset;
  if (spec !== null) extractor = featureExtractor(spec);
  else if (model.preset !== null) extractor = getPreset(model.preset);
  else {
    throw new LagrangeError(
      "bad-input",
      "the model records no feature preset, so its attributes cannot be rebuilt from text columns (a model imported from CRFsuite reads CRFsuite attribute lists)",
    );
  }
  extractors.set(model, extractor);
  return extractor;
}

/**
 * The preset's attributes of a sentence. Rows that do not fit the preset (too few columns) are
 * malformed input, reported at the file and line of the token, not at a token index.
 */
export function sentenceAttributes(preset: Preset, sentence: Sentence): AttributeSequence {
  try {
    return preset.extract(inputRows(sentence));
  } catch (error) {
    if (!(error instanceof FeatureInputError)) throw error;
    throw new LagrangeError(
      "bad-input",
      `${tokenPlace(sentence, error.token)}: ${error.detail}${error.extractor === "dense" ? "" : ` (the ${error.extractor} preset's input columns)`}`,
      { cause: error },
    );
  }
}

/**
 * The preset's attributes of every sentence, for a model (whose file records the preset). A
 * model that reads document inputs (a two-stage model's votes, document context) gets them first:
 * these sentences are a whole corpus, never one sentence at a time.
 */
export function attributesOf(model: CrfModel, sentences: readonly Sentence[]): AttributeSequence[] {
  const preset = modelPreset(model);
  return withDocumentInputsSync(model, sentences).map((s) => sentenceAttributes(preset, s));
}

/** The labels a first-stage model gives a sentence (Viterbi under its scheme's mask). */
function firstStageTagger(first: CrfModel): (sentence: Sentence) => string[] {
  const preset = modelPreset(first);
  const constraints = modelDecodingConstraints(first);
  return (sentence) => first.tag(sentenceAttributes(preset, sentence), { constraints });
}

/**
 * Votes of sentences (a whole corpus, in order: documents are runs of sentences) given the
 * labels a first stage gave them, under its scheme.
 */
export function votesFromLabels(
  sentences: readonly Sentence[],
  labels: readonly (readonly string[])[],
  scheme: ReturnType<typeof modelScheme>,
): SentenceVotes[] {
  return computeVotes(
    sentences.map((s, i) =>
      scheme === "none"
        ? { words: s.tokens, entities: [], types: labels[i]! }
        : { words: s.tokens, entities: entitiesOf(labels[i]!, scheme) },
    ),
    voteDocuments(sentences),
  );
}

/**
 * Whether a model reads inputs computed over whole documents of its input (a first stage's
 * votes, context aggregation): such a model is given a corpus, never a sentence at a time.
 */
export function readsDocumentInputs(model: CrfModel): boolean {
  return model.firstStage !== null || modelFeatureSpec(model)?.context !== undefined;
}

/**
 * Sentences as features of `spec` read them: with the context-aggregation columns appended where
 * the spec has document context (`documentContextColumns` over the documents the votes use: the
 * data's own, or blocks of sentences where it marks none), else as they are.
 */
export function withDocumentContext(
  spec: FeatureSpec | null | undefined,
  sentences: readonly Sentence[],
): readonly Sentence[] {
  if (spec?.context === undefined) return sentences;
  const columns = documentContextColumns(
    sentences.map((s) => s.tokens),
    voteDocuments(sentences),
  );
  return sentences.map((s, i) => appendColumns(s, columns[i]!));
}

/**
 * The sentences as a model reads them: a two-stage model's first stage tags them (reading its
 * own document context, if any), then each gets its votes appended as input columns; a model with
 * document context gets its context columns after those; any other model reads the sentences
 * themselves. Synchronous (the signal is checked between sentences); {@link withDocumentInputs}
 * yields to the event loop.
 */
export function withDocumentInputsSync(
  model: CrfModel,
  sentences: readonly Sentence[],
  signal?: AbortSignal,
): readonly Sentence[] {
  const first = firstStageModel(model);
  if (first === null) return contextOf(model, sentences);
  const tag = firstStageTagger(first);
  const labels = contextOf(first, sentences).map((s) => {
    throwIfAborted(signal);
    return tag(s);
  });
  return contextOf(model, withVotes(first, sentences, labels));
}

function contextOf(model: CrfModel, sentences: readonly Sentence[]): readonly Sentence[] {
  return withDocumentContext(modelFeatureSpec(model), sentences);
}

/** The sentences with the votes of a first stage's labels of them appended. */
function withVotes(
  first: CrfModel,
  sentences: readonly Sentence[],
  labels: readonly (readonly string[])[],
): Sentence[] {
  const votes = votesFromLabels(sentences, labels, modelScheme(first));
  return sentences.map((s, i) => withVoteColumns(s, votes[i]!));
}

/**
 * {@link withDocumentInputsSync} for long inputs: yields to the event loop now and then (a
 * signal's handler runs), and reports the sentences tagged by the first stage.
 */
export async function withDocumentInputs(
  model: CrfModel,
  sentences: readonly Sentence[],
  options: {
    readonly signal?: AbortSignal;
    readonly onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<readonly Sentence[]> {
  const first = firstStageModel(model);
  if (first === null) return contextOf(model, sentences);
  return contextOf(model, await appendFirstStageVotes(first, sentences, options));
}

/**
 * The sentences with the votes of `first` (a first-stage model, tagging them with its own
 * document context if it reads one) appended; a two-stage model's training data and held-out data.
 */
export async function appendFirstStageVotes(
  first: CrfModel,
  sentences: readonly Sentence[],
  options: {
    readonly signal?: AbortSignal;
    readonly onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<Sentence[]> {
  const tag = firstStageTagger(first);
  const checkpoint = checkpoints(options.signal);
  const labels: string[][] = [];
  for (const s of contextOf(first, sentences)) {
    if (checkpoint.due()) {
      await checkpoint.pause();
      options.onProgress?.(labels.length, sentences.length);
    }
    labels.push(tag(s));
  }
  options.onProgress?.(labels.length, sentences.length);
  return withVotes(first, sentences, labels);
}

/**
 * How many input columns a model reads: recorded at training (`settings.inputColumns`, the
 * training data's columns but the gold one); undefined for a model file from before that.
 */
export function modelInputColumns(model: CrfModel): number | undefined {
  const recorded = model.settings.inputColumns;
  return typeof recorded === "number" && Number.isInteger(recorded) && recorded >= 1
    ? recorded
    : undefined;
}

/**
 * The input columns a model reads from a sentence, by name, left to right (its preset's layout:
 * `word`, or `word, pos, chunk`; a dense column by its number): what a caller with words alone
 * (text) lacks. Empty for a model without a preset (it reads CRFsuite attribute lists).
 */
export function modelColumns(model: CrfModel): string[] {
  const spec = modelFeatureSpec(model);
  if (spec === null && model.preset === null) return [];
  const columns = [...modelPreset(model).columns];
  const dense = [...(spec?.dense?.columns ?? [])].sort((a, b) => a - b);
  for (const c of dense) columns.splice(c, 0, `dense column ${c + 1}`);
  return columns;
}
