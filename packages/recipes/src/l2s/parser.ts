import { LagrangeError } from "@lagrange/core";
import type { ConlluSentence, Corpus } from "@lagrange/datasets";
import {
  type ArcHybridParserOptions,
  arcHybridParser,
  type L2sModel,
  type ParseExample,
  parseExamplesFromConllu,
  relationsOf,
  SearchPredictor,
  type SearchTrainingResult,
  trainSearch,
  withParse,
} from "@lagrange/l2s";
import { givenSearchOptions, type L2sSearchOptions } from "./search-options.js";

/** The task name an L2S parser's model file records. */
export const L2S_PARSER_TASK = "arc-hybrid-parser";

/**
 * The base learner an L2S parser trains when none is given: the cost-sensitive averaged
 * perceptron, 22 hash bits — on UD English EWT csoaa's regression plateaus near 82 UAS after one
 * pass while the perceptron keeps improving with passes (bench l2s measures both).
 */
export const L2S_PARSER_DEFAULT_LEARNER = "perceptron";

export interface TrainL2sParserOptions extends L2sSearchOptions {
  /** `dynamic` (default) or `static` (which trains with a reference roll-in: it only knows the gold path). */
  readonly oracle?: "dynamic" | "static";
  /** Predict arc relations (LAS). Default true. */
  readonly labelled?: boolean;
  /** The POS field the parser reads. Default UPOS. */
  readonly tagField?: "UPOS" | "XPOS";
}

export interface TrainedL2sParser {
  readonly model: L2sModel;
  readonly training: SearchTrainingResult;
  readonly relations: readonly string[];
}

/** The CoNLL-U sentences of a corpus, or a clear error for data in another format. */
export function conlluSentences(corpus: Corpus, purpose: string): ConlluSentence[] {
  if (corpus.format !== "conllu") {
    throw new LagrangeError(
      "bad-input",
      `${corpus.label}: ${purpose} needs CoNLL-U data (HEAD and DEPREL fields); this is ${corpus.format}`,
    );
  }
  return corpus.sentences as ConlluSentence[];
}

/**
 * Trains chang2016's arc-hybrid parser on a CoNLL-U corpus: with the dynamic oracle, a learned
 * roll-in and one-step deviations costed by the oracle's exact costs-to-go (a roll-out by the
 * optimal reference, without running it); with the static oracle, imitation of the gold
 * transition sequence.
 */
export async function trainL2sParser(
  corpus: Corpus,
  options: TrainL2sParserOptions = {},
): Promise<TrainedL2sParser> {
  const tagField = options.tagField ?? "UPOS";
  const examples = parseExamplesFromConllu(conlluSentences(corpus, "training a parser"), {
    tagField,
  });
  const withTree = examples.filter((e) => e.heads !== undefined);
  if (withTree.length === 0) {
    throw new LagrangeError(
      "bad-input",
      `${corpus.label}: no sentence has a gold tree (every HEAD is "_"): nothing to train a parser on`,
    );
  }
  const oracle = options.oracle ?? "dynamic";
  const labelled = options.labelled ?? true;
  const relations = relationsOf(withTree);
  const taskOptions: ArcHybridParserOptions = { relations, oracle, labelled };
  const task = arcHybridParser(taskOptions);
  const training = await trainSearch(task, withTree, {
    rollIn: options.rollIn ?? (oracle === "static" ? "reference" : "learned"),
    rollOut: options.rollOut ?? "none",
    learner: options.learner ?? { kind: L2S_PARSER_DEFAULT_LEARNER },
    ...givenSearchOptions(options),
  });
  return {
    model: {
      task: L2S_PARSER_TASK,
      settings: {
        relations,
        labelled,
        tagField,
        oracle,
        learner: options.learner?.kind ?? L2S_PARSER_DEFAULT_LEARNER,
        data: corpus.label,
        passes: options.passes ?? 1,
      },
      policy: training.policy,
    },
    training,
    relations,
  };
}

/** A parser rebuilt from its model file. */
export interface L2sParser {
  readonly relations: readonly string[];
  readonly labelled: boolean;
  readonly tagField: "UPOS" | "XPOS";
  readonly predictor: SearchPredictor<
    ParseExample,
    { heads: Int32Array; relations?: readonly string[] }
  >;
}

export function l2sParserOf(model: L2sModel): L2sParser {
  if (model.task !== L2S_PARSER_TASK) {
    throw new LagrangeError(
      "bad-input",
      `the model is a learning-to-search ${model.task} model; expected an ${L2S_PARSER_TASK} model`,
    );
  }
  const { relations, labelled, tagField } = model.settings;
  if (!Array.isArray(relations) || !relations.every((r) => typeof r === "string")) {
    throw new LagrangeError(
      "bad-input",
      "the model's settings.relations: expected a list of relation names",
    );
  }
  if (tagField !== "UPOS" && tagField !== "XPOS") {
    throw new LagrangeError(
      "bad-input",
      'the model\'s settings.tagField: expected "UPOS" or "XPOS"',
    );
  }
  const names = relations as string[];
  const task = arcHybridParser({ relations: names, labelled: labelled !== false });
  try {
    return {
      relations: names,
      labelled: labelled !== false,
      tagField,
      predictor: new SearchPredictor(task, model.policy),
    };
  } catch (error) {
    throw new LagrangeError(
      "bad-input",
      `the parser model does not fit its task: ${(error as Error).message}`,
    );
  }
}

/**
 * Parses CoNLL-U sentences: the same sentences with HEAD and DEPREL replaced (everything else
 * kept). `tags` replaces the POS field the parser reads (a tagger's predictions), one list per
 * sentence.
 */
export function parseWithL2s(
  parser: L2sParser,
  sentences: readonly ConlluSentence[],
  tags?: readonly (readonly string[])[],
): ConlluSentence[] {
  const examples = parseExamplesFromConllu(sentences, { tagField: parser.tagField });
  return sentences.map((sentence, k) => {
    const example = examples[k]!;
    const given = tags?.[k];
    if (given !== undefined && given.length !== example.words.length) {
      throw new LagrangeError(
        "bad-input",
        `sentence ${k + 1}: ${given.length} predicted tags for ${example.words.length} words`,
      );
    }
    const input: ParseExample = {
      words: example.words,
      tags: given ?? example.tags,
      ...(example.source === undefined ? {} : { source: example.source }),
    };
    const output = parser.predictor.predict(input);
    return withParse(sentence, output.heads, output.relations);
  });
}
