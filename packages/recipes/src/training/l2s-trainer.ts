import type { Corpus, LabelScheme } from "@lagrange/datasets";
import type { BaseLearnerOptions, SearchProgress } from "@lagrange/l2s";
import { parseClassWeights } from "../class-weights.js";
import {
  type TrainedL2sParser,
  type TrainL2sParserOptions,
  trainL2sParser,
} from "../l2s/parser.js";
import { type TrainedL2sTagger, trainL2sTagger } from "../l2s/tagger.js";
import { checkL2sTrainingMemory, l2sActionSpaces } from "../training-memory.js";
import { checkTrainingSpec } from "./check-spec.js";
import { definedFields } from "./defined-fields.js";
import { defaultBaseLearner, type L2sTrainingSpec } from "./spec.js";

interface RunHooks {
  readonly onProgress?: (progress: SearchProgress) => void;
  readonly signal?: AbortSignal;
}

export interface L2sTrainer {
  /** The base learner trained, named even when defaulted (a lone `bits` must not change it). */
  readonly learner: BaseLearnerOptions;
  trainTagger(
    corpus: Corpus,
    options: {
      readonly preset: string;
      readonly scheme: LabelScheme;
      readonly bridge: boolean;
    } & RunHooks,
  ): Promise<TrainedL2sTagger>;
  trainParser(
    corpus: Corpus,
    options: Pick<TrainL2sParserOptions, "oracle" | "tagField"> & RunHooks,
  ): Promise<TrainedL2sParser>;
}

/**
 * {@link openTrainer}'s L2S side: the spec checked, its search settings resolved once, and its
 * hashed tables refused when they would pass `limitBytes` (known before anything is read).
 */
export function openL2sTrainer(spec: L2sTrainingSpec, limitBytes?: number): L2sTrainer {
  checkTrainingSpec(spec);
  const learner: BaseLearnerOptions =
    (spec.baseLearner ?? defaultBaseLearner(spec.task)) === "perceptron"
      ? { kind: "perceptron", ...definedFields({ bits: spec.bits }) }
      : { kind: "csoaa", ...definedFields({ bits: spec.bits, learningRate: spec.learningRate }) };
  const search = {
    ...definedFields({
      passes: spec.passes,
      rollIn: spec.rollIn,
      rollOut: spec.rollOut,
      seed: spec.seed,
    }),
    learner,
  };
  const labelled = spec.labelled ?? true;
  const spaces = l2sActionSpaces(spec.task === "parser" ? "parser" : "tagger", labelled);
  checkL2sTrainingMemory(learner, spaces, limitBytes);
  return {
    learner,
    trainTagger: (corpus, { onProgress, signal, ...tagger }) =>
      trainL2sTagger(corpus, {
        ...tagger,
        ...definedFields({ classWeights: parseClassWeights(spec.classWeights ?? []) }),
        ...search,
        ...definedFields({ onProgress, signal }),
      }),
    trainParser: (corpus, { onProgress, signal, ...parser }) =>
      trainL2sParser(corpus, {
        ...parser,
        labelled,
        ...search,
        ...definedFields({ onProgress, signal }),
      }),
  };
}
