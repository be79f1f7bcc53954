import {
  type LabellingScore,
  renderLabellingScore,
  scoreConlluTagging,
  type TaggedConllu,
} from "@lagrange/datasets";
import { usageError } from "../exit-codes.js";
import { type EvalOptions, evaluationJson, percent } from "./eval-conll.js";

/** conlleval's options have no meaning for POS tags scored against a CoNLL-U field. */
const CONLLEVAL_ONLY: readonly [keyof EvalOptions, string][] = [
  ["raw", "--raw"],
  ["delimiter", "--delimiter"],
  ["outside", "--outside"],
  ["latex", "--latex"],
  ["hierarchical", "--hierarchical or --flat"],
];

/** `lagrange tag`'s output of CoNLL-U: token accuracy against its UPOS or XPOS field. */
export function conlluReport(tagged: TaggedConllu, options: EvalOptions): string {
  const given = CONLLEVAL_ONLY.filter(([key]) => options[key] !== undefined).map(([, n]) => n);
  if (given.length > 0) {
    throw usageError(
      `${given.join(", ")}: conlleval's options; this is lagrange tag's output of CoNLL-U, scored by token accuracy against its ${options.column ?? "UPOS or XPOS"} field`,
    );
  }
  const score = scoreConlluTagging(tagged.upos, tagged.xpos, tagged.predicted, options.column);
  if (options.json) return `${JSON.stringify(labellingScoreJson(score))}\n`;
  const field = score.column === "XPOS" ? 5 : 4;
  return `processed ${score.tokens} tokens in ${tagged.predicted.length} sentences (lagrange tag's output of CoNLL-U: gold ${score.column} = field ${field}, prediction = the last field)\n${renderLabellingScore(score)}\n`;
}

/** A score as JSON, in percent like conlleval. */
export function labellingScoreJson(score: LabellingScore): unknown {
  if (score.kind === "accuracy") {
    return {
      kind: score.kind,
      ...(score.column === undefined ? {} : { column: score.column }),
      tokens: score.tokens,
      correct: score.correct,
      accuracy: percent(score.accuracy),
    };
  }
  return {
    kind: score.kind,
    scheme: score.scheme,
    ...(evaluationJson(score.evaluation) as object),
  };
}
