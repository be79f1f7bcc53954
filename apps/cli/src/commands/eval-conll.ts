import {
  type ChunkEvaluation,
  formatConllevalReport,
  type PosField,
  type SegmentEvaluation,
  scoreLabelColumns,
} from "@lagrange/datasets";
import { badInputError } from "../exit-codes.js";
import { warn } from "../progress.js";

/** The options of `lagrange eval` that its reports read (the flags, once parsed). */
export interface EvalOptions {
  readonly json?: boolean;
  readonly raw?: boolean;
  readonly delimiter?: string;
  readonly outside?: string;
  readonly latex?: boolean;
  readonly hierarchical?: boolean;
  /**
   * `lagrange tag`'s output of CoNLL-U (the ten fields, then the prediction): the POS field the
   * prediction is scored against; default the one whose tags the predictions are.
   */
  readonly column?: PosField;
  /** The last column is the prediction's probability (`lagrange tag --marginals`): calibration too. */
  readonly confidence?: boolean;
  /** With `confidence`: the reliability diagram's SVG file. */
  readonly reliability?: string;
  /** `lagrange tag --nbest k`'s output (gold, then k labellings): oracle F1 at 1, 5, 10, k. */
  readonly nbest?: number;
}

export const percent = (x: number) => Math.round(x * 10000) / 100;

/** conlleval's figures as JSON, in percent like conlleval. */
export function evaluationJson(evaluation: ChunkEvaluation): unknown {
  const perType: Record<string, unknown> = {};
  for (const [type, e] of Object.entries(evaluation.perType)) {
    perType[type] = {
      precision: percent(e.precision),
      recall: percent(e.recall),
      f1: percent(e.f1),
      count: e.count,
    };
  }
  return {
    tokenAccuracy: percent(evaluation.tokenAccuracy),
    precision: percent(evaluation.precision),
    recall: percent(evaluation.recall),
    f1: percent(evaluation.f1),
    perType,
  };
}

/**
 * A file without a predicted column (training data: token, POS, gold; or token and gold) scores
 * its second-to-last column as gold against the last: F1 0.00 that looks like a result. Refused
 * when the two columns share no label at all, naming the first token line — on a file of at least
 * {@link DISJOINT_EVIDENCE_TOKENS} tokens; a shorter one may be a real prediction that is all
 * wrong, and is scored with a warning.
 */
export function checkPredictedColumn(text: string, file: string, delimiter?: string): void {
  const gold = new Set<string>();
  const predicted = new Set<string>();
  let tokens = 0;
  let first: { line: number; gold: string; predicted: string } | undefined;
  const lines = text.split("\n");
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l]!.trim();
    if (line === "" || line.startsWith("-DOCSTART-")) continue;
    const fields = delimiter === undefined ? line.split(/\s+/) : line.split(delimiter);
    if (fields.length < 2) return; // conlleval's reader names the line
    const g = fields[fields.length - 2]!;
    const p = fields[fields.length - 1]!;
    if (predicted.has(g) || gold.has(p) || g === p) return;
    gold.add(g);
    predicted.add(p);
    tokens++;
    first ??= { line: l + 1, gold: g, predicted: p };
  }
  if (first === undefined) return;
  const why = `${file}:${first.line}: the last two columns share no label (${JSON.stringify(first.gold)} … ${JSON.stringify(first.predicted)}, and so on through the file): expected the gold label second to last and the predicted one last, as lagrange tag writes them; is the predicted column missing (tag the file first)?`;
  if (tokens < DISJOINT_EVIDENCE_TOKENS) {
    warn(why);
    return;
  }
  throw badInputError(why);
}

/** Tokens whose gold and predicted labels never meet before that is taken for a missing column. */
const DISJOINT_EVIDENCE_TOKENS = 20;

/**
 * A file of CoNLL columns (gold second to last, prediction last), scored as
 * {@link scoreLabelColumns} has it: conlleval's report (or its figures as JSON), or for
 * hierarchical labels the segments at every level.
 */
export function conllReport(text: string, file: string, options: EvalOptions): string {
  checkPredictedColumn(text, file, options.delimiter);
  const score = scoreLabelColumns(text, {
    file,
    ...(options.raw ? { raw: true } : {}),
    ...(options.delimiter === undefined ? {} : { delimiter: options.delimiter }),
    ...(options.outside === undefined ? {} : { outside: options.outside }),
    ...(options.latex ? { latex: true } : {}),
    ...(options.hierarchical === undefined ? {} : { hierarchical: options.hierarchical }),
  });
  if (score.kind === "segments") return segmentsReport(score.evaluation, options.json === true);
  if (options.json) return `${JSON.stringify(evaluationJson(score.evaluation))}\n`;
  return formatConllevalReport(score.evaluation, { latex: options.latex === true });
}

/** Hierarchical labels: field F1 over all levels, then per level and per type path. */
function segmentsReport(e: SegmentEvaluation, json: boolean): string {
  if (json) {
    return `${JSON.stringify({ ...(evaluationJson(e) as object), perLevel: e.perLevel.map((l) => ({ precision: percent(l.precision), recall: percent(l.recall), f1: percent(l.f1), count: l.count })) })}\n`;
  }
  const lines = [
    `processed ${e.tokens} tokens with ${e.goldChunks} gold segments at all levels; found: ${e.predictedChunks} segments; correct: ${e.correctChunks}.`,
    `field F1 (all levels): precision: ${(100 * e.precision).toFixed(2)}%; recall: ${(100 * e.recall).toFixed(2)}%; F1: ${(100 * e.f1).toFixed(2)}; token accuracy: ${(100 * e.tokenAccuracy).toFixed(2)}%`,
    ...e.perLevel.map(
      (l, k) =>
        `level ${k}: precision: ${(100 * l.precision).toFixed(2)}%; recall: ${(100 * l.recall).toFixed(2)}%; F1: ${(100 * l.f1).toFixed(2)}  ${l.count}`,
    ),
    ...Object.entries(e.perType).map(
      ([type, t]) =>
        `${type.padStart(17)}: precision: ${(100 * t.precision).toFixed(2).padStart(6)}%; recall: ${(100 * t.recall).toFixed(2).padStart(6)}%; F1: ${(100 * t.f1).toFixed(2).padStart(6)}  ${t.count}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
