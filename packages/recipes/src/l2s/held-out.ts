import { getPreset } from "@lagrange/chain-crf";
import {
  type ConlluSentence,
  type Corpus,
  type DependencyEvaluation,
  evaluateDependencies,
} from "@lagrange/datasets";
import { parseExamplesFromConllu } from "@lagrange/l2s";
import { standardDecoders } from "../decoders.js";
import { inputForPreset } from "../model-input.js";
import { schemeScorer } from "../training.js";
import { conlluSentences, type L2sParser, parseWithL2s } from "./parser.js";
import { type L2sTagger, tagWithL2s } from "./tagger.js";

/**
 * An L2S tagger's scores on gold-labelled held-out data, tagged greedily (its own policy): token
 * accuracy, and chunk F1 under a scheme other than `none` — the scores a CRF's dev evaluation
 * gives. The data must carry gold labels and the columns the tagger reads (a `bad-input` error
 * otherwise).
 */
export function scoreL2sTagger(
  tagger: L2sTagger,
  dev: Corpus,
): { readonly tokenAccuracy: number; readonly f1?: number } {
  const input = inputForPreset(dev, getPreset(tagger.preset), tagger.inputColumns, "required");
  const predicted = tagWithL2s(tagger, input.sentences, standardDecoders());
  const gold = input.sentences.map((s) => s.labels ?? []);
  return schemeScorer(tagger.scheme)(gold, predicted);
}

/** Attachment scores with punctuation words scored, and without them. */
export interface ParserScores {
  readonly include: DependencyEvaluation;
  readonly exclude: DependencyEvaluation;
}

/** Attachment scores of predicted trees against gold ones, with and without punctuation. */
export function dependencyScores(
  gold: readonly ConlluSentence[],
  predicted: readonly ConlluSentence[],
): ParserScores {
  return {
    include: evaluateDependencies(gold, predicted, { punctuation: "include" }),
    exclude: evaluateDependencies(gold, predicted, { punctuation: "exclude" }),
  };
}

/** An L2S parser's attachment scores on gold trees (parsed with their gold POS tags). */
export function scoreL2sParser(parser: L2sParser, trees: readonly ConlluSentence[]): ParserScores {
  return dependencyScores(trees, parseWithL2s(parser, trees));
}

/**
 * The held-out sentences with a gold tree, checked before training (a bad HEAD is reported at its
 * file:line now, not after an hour); sentences without one (every HEAD `_`) are left out, and
 * `total` says how many there were.
 */
export function heldOutTrees(
  dev: Corpus,
  tagField: "UPOS" | "XPOS",
): { readonly trees: ConlluSentence[]; readonly total: number } {
  const sentences = conlluSentences(dev, "evaluating a parser (--dev)");
  const examples = parseExamplesFromConllu(sentences, { tagField });
  const trees = sentences.filter((_, k) => examples[k]!.heads !== undefined);
  return { trees, total: sentences.length };
}
