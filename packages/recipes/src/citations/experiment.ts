import type { AttributeSequence, TrainingProgress } from "@lagrange/chain-crf";
import type { WeightedTemplate } from "@lagrange/constraint-templates";
import {
  checkpoints,
  type DecodeOptions,
  type Decoder,
  type DecoderRegistry,
  type Decoding,
  type DecodingSummary,
  type LinearConstraint,
  seededRandom,
  shuffleInPlace,
  summarizeDecodings,
} from "@lagrange/core";
import { evaluateSegments, type Sentence } from "@lagrange/datasets";
import { type ScoredSentence, scoreSentences } from "../constraint-learning.js";
import { standardDecoders } from "../decoders.js";
import { attributesOf } from "../model-input.js";
import { type Tagged, Tagger, type TaggingTime } from "../tagger.js";
import { chainTagger } from "../tagging/chain-tagger.js";
import type { SequenceTagger } from "../tagging/sequence-tagger.js";
import { type BaseModel, trainOrLoadModel } from "../training-cache.js";
import { type CitationCorporaOptions, citationCorpora } from "./corpus.js";

export interface CitationExperimentOptions extends CitationCorporaOptions {
  /** L-BFGS iterations of the base CRF (default 60; quick 15). */
  readonly crfIterations?: number;
  /** Keep attributes seen at least this often in training (default 1; higher: a smaller model). */
  readonly minAttributeFrequency?: number;
  /** Threads for CRF training (default 2). */
  readonly threads?: number;
  /** Seed of the dev split into a learning half and a test half (default 1). */
  readonly seed?: number;
  /** Where trained models are cached; absent: always train. */
  readonly cacheDir?: string;
  readonly registry?: DecoderRegistry;
  // biome-ignore lint/suspicious/noConfusingVoidType: a progress callback returns nothing
  readonly onTrainingProgress?: (progress: TrainingProgress) => void | boolean;
}

/** Everything anzaroot2014's experiment starts from. */
export interface CitationExperiment {
  readonly source: string;
  readonly generated: boolean;
  readonly seed: number;
  readonly crfIterations: number;
  readonly trainCitations: number;
  readonly base: BaseModel;
  readonly registry: DecoderRegistry;
  /** The half of dev that penalties are learned on. */
  readonly learn: ScoredSentence[];
  /** The other half: results are measured here. */
  readonly test: ScoredSentence[];
  readonly testSentences: Sentence[];
  readonly testAttributes: AttributeSequence[];
  readonly testGold: string[][];
}

/** Indices 0..n−1 shuffled with the project's seeded generator, cut in two halves. */
export function seededHalves(n: number, seed: number): [number[], number[]] {
  const order = shuffleInPlace(
    Array.from({ length: n }, (_, i) => i),
    seededRandom(seed),
  );
  const half = Math.floor(n / 2);
  return [order.slice(0, half), order.slice(half)];
}

/**
 * The experiment's setup: citations (UMass, or generated), the citation CRF (hierarchical BIO,
 * c2 = 1, from the cache when the same attributes, labels and settings trained one before), and
 * dev split by a seed into a learning half and a test half, both scored by the CRF.
 */
export async function prepareCitationExperiment(
  options: CitationExperimentOptions = {},
): Promise<CitationExperiment> {
  const status = options.onStatus ?? (() => {});
  const quick = options.quick === true;
  const seed = options.seed ?? 1;
  const crfIterations = options.crfIterations ?? (quick ? 15 : 60);
  const data = await citationCorpora(options);
  status(
    `data: ${data.source}; ${data.train.sentences.length} train / ${data.dev.sentences.length} dev`,
  );
  const base = await trainOrLoadModel(data.train, {
    name: "citation-crf",
    preset: "citation",
    scheme: "hierarchical-BIO",
    iterations: crfIterations,
    c2: 1,
    ...(options.minAttributeFrequency === undefined
      ? {}
      : { minAttributeFrequency: options.minAttributeFrequency }),
    threads: options.threads ?? 2,
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    onStatus: status,
    ...(options.onTrainingProgress === undefined
      ? {}
      : { onTrainingProgress: options.onTrainingProgress }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const [learnIds, testIds] = seededHalves(data.dev.sentences.length, seed);
  const learnSentences = learnIds.map((i) => data.dev.sentences[i]!);
  const testSentences = testIds.map((i) => data.dev.sentences[i]!);
  const testAttributes = attributesOf(base.model, testSentences);
  return {
    source: data.source,
    generated: data.generated,
    seed,
    crfIterations,
    trainCitations: data.train.sentences.length,
    base,
    registry: options.registry ?? standardDecoders(),
    learn: scoreSentences(base.model, learnSentences, attributesOf(base.model, learnSentences)),
    test: scoreSentences(base.model, testSentences, testAttributes),
    testSentences,
    testAttributes,
    testGold: testSentences.map((s) => s.labels!),
  };
}

/** Relative error reduction of an F1 (percent) over a baseline F1 (percent), in percent. */
export function errorReduction(baselineF1: number, f1: number): number {
  return (100 * (f1 - baselineF1)) / Math.max(1e-12, 100 - baselineF1);
}

/** Field scores over all hierarchy levels, in percent. */
export interface FieldScores {
  readonly f1: number;
  readonly precision: number;
  readonly recall: number;
  /** Top-level fields only. */
  readonly topLevelF1: number;
  readonly tokenAccuracy: number;
}

export function fieldScores(
  gold: readonly (readonly string[])[],
  predicted: readonly (readonly string[])[],
): FieldScores {
  const e = evaluateSegments(gold, predicted);
  return {
    f1: 100 * e.f1,
    precision: 100 * e.precision,
    recall: 100 * e.recall,
    topLevelF1: 100 * (e.perLevel[0]?.f1 ?? 0),
    tokenAccuracy: 100 * e.tokenAccuracy,
  };
}

/** The test half decoded one way. */
export interface DecodedTest {
  readonly decoder: string;
  readonly labels: string[][];
  readonly decodings: Decoding[];
  /** Per citation, the constraints it was decoded under. */
  readonly constraints: (readonly LinearConstraint[])[];
  readonly summary: DecodingSummary;
  readonly scores: FieldScores;
  /** Where the time went (one pass, cold caches included). */
  readonly time: TaggingTime;
}

/** A tagger over the experiment's model: a decoder (registry name or object) and constraints. */
export function experimentTagger(
  experiment: CitationExperiment,
  decoder: string | Decoder,
  constraints?: readonly WeightedTemplate[],
  decodeOptions?: DecodeOptions,
): SequenceTagger {
  return chainTagger(experiment.base.model, {
    registry: experiment.registry,
    decoder,
    ...(constraints === undefined ? {} : { constraints }),
    ...(decodeOptions === undefined ? {} : { decodeOptions }),
  });
}

/** Decodes the test half through the chain tagger's engine (its decodings kept) and scores it. */
export async function decodeTest(
  experiment: CitationExperiment,
  decoder: string | Decoder,
  constraints?: readonly WeightedTemplate[],
  decodeOptions?: DecodeOptions,
): Promise<DecodedTest> {
  const tagger = new Tagger({
    model: experiment.base.model,
    registry: experiment.registry,
    decoder,
    ...(constraints === undefined ? {} : { constraints }),
    ...(decodeOptions === undefined ? {} : { decodeOptions }),
  });
  const checkpoint = checkpoints(decodeOptions?.signal);
  const tagged: Tagged[] = [];
  for (let i = 0; i < experiment.testSentences.length; i++) {
    if (checkpoint.due()) await checkpoint.pause();
    const sentence = experiment.testSentences[i]!;
    tagged.push(
      tagger.tagAttributes(experiment.testAttributes[i]!, sentence.tokens, decodeOptions?.signal),
    );
  }
  const labels = tagged.map((t) => t.labels);
  const decodings = tagged.map((t) => t.decoding);
  return {
    decoder: tagger.decoder.name,
    labels,
    decodings,
    constraints: tagged.map((t) => t.constraints),
    summary: summarizeDecodings(decodings),
    scores: fieldScores(experiment.testGold, labels),
    time: tagger.time,
  };
}
