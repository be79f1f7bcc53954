import type { CorpusFormat } from "../registry/corpus-model.js";
import { inferScheme, type LabelScheme } from "../schemes/label-scheme.js";
import type { Sentence } from "../sentence.js";
import {
  AlignmentError,
  checkAligned,
  type LabelSequences,
  SegmentCounter,
  type SegmentEvaluation,
} from "./chunks.js";
import { type ChunkEvaluation, ConllevalCounter } from "./conlleval.js";

/**
 * How a labelling is scored: span labels (a chunk scheme, or the hierarchical BIO of citations)
 * by chunk F1, plain tags (POS: scheme `none`) by token accuracy.
 */
export type LabellingScore = ChunkF1Score | AccuracyScore;

export interface ChunkF1Score {
  readonly kind: "chunk-f1";
  /** The scheme the chunks were read under. */
  readonly scheme: Exclude<LabelScheme, "none">;
  /**
   * `conlleval`: conlleval.pl's own counting (IOB1, IOB2, IOE1, IOE2); `spans`: chunks decoded by
   * the scheme and matched on (type, start, end) (BIOES, BILOU, whose S-/U- conlleval misreads;
   * hierarchical BIO, at every level).
   */
  readonly counting: "conlleval" | "spans";
  /** The gold column's name where it has one (for the report). */
  readonly column?: string;
  /** A SegmentEvaluation (with `perLevel`) for hierarchical BIO. */
  readonly evaluation: ChunkEvaluation | SegmentEvaluation;
}

export interface AccuracyScore {
  readonly kind: "accuracy";
  /** The gold column's name where it has one (`UPOS`, `XPOS`). */
  readonly column?: string;
  readonly tokens: number;
  readonly correct: number;
  /** `correct / tokens` (0 for no token). */
  readonly accuracy: number;
}

export interface LabellingScoreOptions {
  /** Names the gold column in the score and its rendering (`UPOS`). */
  readonly column?: string;
}

/** The schemes whose chunks conlleval.pl reads exactly as the scheme means them. */
const CONLLEVAL_SCHEMES: ReadonlySet<LabelScheme> = new Set(["IOB1", "IOB2", "IOE1", "IOE2"]);

/**
 * Scores predicted labels against gold one sentence at a time (a stream in bounded memory): the
 * one scorer of `lagrange eval` and of `lagrange tag`'s report, so that the two print the same
 * figure for the same output.
 */
export class LabellingScorer {
  readonly #scheme: LabelScheme;
  readonly #column: string | undefined;
  readonly #conlleval: ConllevalCounter | undefined;
  readonly #spans: SegmentCounter | undefined;
  #tokens = 0;
  #correct = 0;
  #sentences = 0;

  constructor(scheme: LabelScheme, options: LabellingScoreOptions = {}) {
    this.#scheme = scheme;
    this.#column = options.column;
    if (CONLLEVAL_SCHEMES.has(scheme)) this.#conlleval = new ConllevalCounter();
    else if (scheme === "hierarchical-BIO") {
      this.#spans = new SegmentCounter("IOB2", { levelSeparator: "/" });
    } else if (scheme !== "none") this.#spans = new SegmentCounter(scheme);
  }

  /** One sentence: as many predicted labels as gold ones (else an AlignmentError). */
  add(gold: readonly string[], predicted: readonly string[]): void {
    if (gold.length !== predicted.length) {
      throw new AlignmentError(
        `sentence ${this.#sentences + 1}: ${gold.length} gold labels but ${predicted.length} predicted`,
      );
    }
    this.#sentences++;
    for (let i = 0; i < gold.length; i++) {
      this.#tokens++;
      if (gold[i] === predicted[i]) this.#correct++;
    }
    if (this.#conlleval !== undefined) {
      // As conlleval reads a CoNLL file: the tokens, then the blank line after the sentence.
      for (let i = 0; i < gold.length; i++) this.#conlleval.addToken(gold[i]!, predicted[i]!);
      this.#conlleval.addBoundary();
    }
    this.#spans?.add(gold, predicted);
  }

  score(): LabellingScore {
    const column = this.#column === undefined ? {} : { column: this.#column };
    const scheme = this.#scheme;
    if (scheme === "none") {
      const tokens = this.#tokens;
      const correct = this.#correct;
      return {
        kind: "accuracy",
        ...column,
        tokens,
        correct,
        accuracy: tokens > 0 ? correct / tokens : 0,
      };
    }
    let evaluation: ChunkEvaluation | SegmentEvaluation;
    if (this.#conlleval !== undefined) evaluation = this.#conlleval.finish();
    else {
      const { perLevel, ...flat } = this.#spans!.finish();
      // Levels only mean something for hierarchical labels (as evaluateChunks has it).
      evaluation = scheme === "hierarchical-BIO" ? { ...flat, perLevel } : flat;
    }
    const counting = this.#conlleval === undefined ? "spans" : "conlleval";
    return { kind: "chunk-f1", scheme, counting, ...column, evaluation };
  }
}

/**
 * Scores a labelling: chunk F1 for span labels, token accuracy for plain tags. `scheme` defaults
 * to the one the gold labels fit ({@link inferScheme}: `none` when no label has a chunk prefix).
 */
export function scoreLabelling(
  gold: LabelSequences,
  predicted: LabelSequences,
  scheme?: LabelScheme,
  options: LabellingScoreOptions = {},
): LabellingScore {
  checkAligned(gold, predicted);
  const scorer = new LabellingScorer(scheme ?? inferScheme(gold), options);
  for (let s = 0; s < gold.length; s++) scorer.add(gold[s]!, predicted[s]!);
  return scorer.score();
}

const pct = (x: number): string => (100 * x).toFixed(2);

/**
 * A score in one line, saying what it is: `UPOS token accuracy 94.22% (23695/25148 tokens)` or
 * `chunk F1 93.45 (IOB2, conlleval; precision 93.10%, recall 93.80%; token accuracy 95.12%)`.
 */
export function renderLabellingScore(score: LabellingScore): string {
  const column = score.column === undefined ? "" : `${score.column} `;
  if (score.kind === "accuracy") {
    return `${column}token accuracy ${pct(score.accuracy)}% (${score.correct}/${score.tokens} tokens)`;
  }
  const e = score.evaluation;
  const how =
    score.scheme === "hierarchical-BIO"
      ? "hierarchical-BIO, segments at every level"
      : `${score.scheme}, ${score.counting === "conlleval" ? "conlleval" : "spans"}`;
  return `${column}chunk F1 ${pct(e.f1)} (${how}; precision ${pct(e.precision)}%, recall ${pct(e.recall)}%, ${e.goldChunks} gold chunks; token accuracy ${pct(e.tokenAccuracy)}%)`;
}

/** The two POS fields of CoNLL-U a tagger may predict. */
export type PosField = "UPOS" | "XPOS";

/**
 * Which CoNLL-U POS field a tagging predicts, read off its labels: XPOS when more predicted
 * tokens carry a label of the XPOS column's vocabulary than of the UPOS column's, else UPOS
 * (the two tag sets barely overlap: `NOUN`, `VERB` against `NN`, `VBZ`).
 */
export function posFieldOf(
  upos: LabelSequences,
  xpos: LabelSequences,
  predicted: LabelSequences,
): PosField {
  const vocabulary = (sequences: LabelSequences) => {
    const seen = new Set<string>();
    for (const labels of sequences) for (const label of labels) seen.add(label);
    return seen;
  };
  const u = vocabulary(upos);
  const x = vocabulary(xpos);
  let inU = 0;
  let inX = 0;
  for (const labels of predicted) {
    for (const label of labels) {
      if (u.has(label)) inU++;
      if (x.has(label)) inX++;
    }
  }
  return inX > inU ? "XPOS" : "UPOS";
}

/**
 * Scores a CoNLL-U tagging against the POS field it predicts (`field`, else {@link posFieldOf}):
 * token accuracy, the column named.
 */
export function scoreConlluTagging(
  upos: LabelSequences,
  xpos: LabelSequences,
  predicted: LabelSequences,
  field?: PosField,
): AccuracyScore {
  const chosen = field ?? posFieldOf(upos, xpos, predicted);
  const score = scoreLabelling(chosen === "UPOS" ? upos : xpos, predicted, "none", {
    column: chosen,
  });
  return score as AccuracyScore;
}

/** CONLLU_FIELDS' indices of UPOS and XPOS. */
const UPOS = 3;
const XPOS = 4;

/**
 * Scores the labels predicted for a corpus's sentences against their gold, as `lagrange eval`
 * scores the file `lagrange tag` writes of them: CoNLL-U by its POS field (`field`, else the one
 * the predictions are tags of), every other format by its gold labels under the scheme they fit.
 * Undefined when no sentence has gold; sentences without gold are left out.
 */
export function scoreTagging(
  format: CorpusFormat,
  sentences: readonly Sentence[],
  predicted: LabelSequences,
  options: { readonly field?: PosField } = {},
): LabellingScore | undefined {
  if (sentences.length !== predicted.length) {
    throw new AlignmentError(
      `expected as many predicted sentences as gold ones: ${sentences.length} gold, ${predicted.length} predicted`,
    );
  }
  const kept = sentences.flatMap((s, i) => (s.labels === undefined ? [] : [i]));
  if (kept.length === 0) return undefined;
  const guesses = kept.map((i) => predicted[i]!);
  if (format === "conllu") {
    const column = (c: number) => kept.map((i) => sentences[i]!.columns[c]!);
    return scoreConlluTagging(column(UPOS), column(XPOS), guesses, options.field);
  }
  return scoreLabelling(
    kept.map((i) => sentences[i]!.labels!),
    guesses,
  );
}
