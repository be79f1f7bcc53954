import { checkAligned, type LabelSequences } from "./chunks.js";
import { type PrecisionRecallF1, prf } from "./conlleval.js";
import { compareCodePoints } from "./perl.js";
import { Tally } from "./tally.js";

export interface LabelEvaluation extends PrecisionRecallF1 {
  /** Gold tokens with this label. */
  readonly support: number;
  /** Tokens predicted with this label. */
  readonly predicted: number;
  /** Tokens with this label in both. */
  readonly correct: number;
}

export interface TokenEvaluation {
  readonly tokens: number;
  readonly correctTokens: number;
  /** Fraction of tokens whose predicted label equals the gold one (fersini2014 eq. 34). */
  readonly accuracy: number;
  /** The labels averaged over, sorted by code point. */
  readonly labels: readonly string[];
  /** Per label, token-level P/R/F (fersini2014 eqs. 31–33). */
  readonly perLabel: Readonly<Record<string, LabelEvaluation>>;
  /** From counts pooled over `labels`. With every label included, micro P = R = F = accuracy. */
  readonly micro: PrecisionRecallF1;
  /** Unweighted means of the per-label precision, recall and F1 over `labels`. */
  readonly macro: PrecisionRecallF1;
}

export interface TokenEvaluationOptions {
  /** Include the outside label in `labels` (and so in the averages). Default true. */
  readonly includeOutside?: boolean;
  /** Default `O`. */
  readonly outside?: string;
}

/**
 * Token accuracy and per-label precision/recall/F1 with micro and macro averages, over every
 * label that occurs in gold or prediction (minus the outside label when excluded). A label never
 * predicted has precision 0, one never in gold recall 0 — the usual convention, which pulls the
 * macro average down.
 */
export function evaluateTokens(
  gold: LabelSequences,
  predicted: LabelSequences,
  options: TokenEvaluationOptions = {},
): TokenEvaluation {
  checkAligned(gold, predicted);
  const outside = options.outside ?? "O";
  const includeOutside = options.includeOutside ?? true;
  const counts = new Tally<string, { support: number; predicted: number; correct: number }>(() => ({
    support: 0,
    predicted: 0,
    correct: 0,
  }));
  let tokens = 0;
  let correctTokens = 0;
  for (let s = 0; s < gold.length; s++) {
    const g = gold[s]!;
    const p = predicted[s]!;
    for (let i = 0; i < g.length; i++) {
      tokens++;
      counts.of(g[i]!).support++;
      counts.of(p[i]!).predicted++;
      if (g[i] === p[i]) {
        correctTokens++;
        counts.of(g[i]!).correct++;
      }
    }
  }
  const labels = [...counts.counts.keys()]
    .filter((label) => includeOutside || label !== outside)
    .sort(compareCodePoints);
  const perLabel: [string, LabelEvaluation][] = [];
  let support = 0;
  let predictedTotal = 0;
  let correct = 0;
  let sumP = 0;
  let sumR = 0;
  let sumF = 0;
  for (const label of labels) {
    const c = counts.of(label);
    const scores = prf(c.correct, c.predicted, c.support);
    perLabel.push([label, { ...scores, ...c }]);
    support += c.support;
    predictedTotal += c.predicted;
    correct += c.correct;
    sumP += scores.precision;
    sumR += scores.recall;
    sumF += scores.f1;
  }
  const k = labels.length;
  return {
    tokens,
    correctTokens,
    accuracy: tokens > 0 ? correctTokens / tokens : 0,
    labels,
    perLabel: Object.fromEntries(perLabel),
    micro: prf(correct, predictedTotal, support),
    macro:
      k > 0
        ? { precision: sumP / k, recall: sumR / k, f1: sumF / k }
        : { precision: 0, recall: 0, f1: 0 },
  };
}

export interface ConfusionMatrix {
  /** Row and column order. */
  readonly labels: readonly string[];
  /** `counts[gold * L + predicted]`: tokens with that gold label and that prediction. */
  readonly counts: Int32Array;
  readonly total: number;
}

/**
 * Label × label token counts (rows gold, columns predicted). `labels` fixes the order (default:
 * every label seen, by code point); a label outside a given list is an error.
 */
export function confusionMatrix(
  gold: LabelSequences,
  predicted: LabelSequences,
  options: { readonly labels?: readonly string[] } = {},
): ConfusionMatrix {
  checkAligned(gold, predicted);
  let labels = options.labels;
  if (labels === undefined) {
    const seen = new Set<string>();
    for (const sentence of gold) for (const label of sentence) seen.add(label);
    for (const sentence of predicted) for (const label of sentence) seen.add(label);
    labels = [...seen].sort(compareCodePoints);
  }
  const index = new Map<string, number>();
  labels.forEach((label, i) => {
    if (index.has(label))
      throw new Error(`confusionMatrix: label ${JSON.stringify(label)} is listed twice`);
    index.set(label, i);
  });
  const L = labels.length;
  const counts = new Int32Array(L * L);
  let total = 0;
  const id = (label: string, s: number, i: number, side: string): number => {
    const found = index.get(label);
    if (found === undefined) {
      throw new Error(
        `confusionMatrix: ${side} label ${JSON.stringify(label)} (sentence ${s}, token ${i}) is not in the given labels`,
      );
    }
    return found;
  };
  for (let s = 0; s < gold.length; s++) {
    const g = gold[s]!;
    const p = predicted[s]!;
    for (let i = 0; i < g.length; i++) {
      counts[id(g[i]!, s, i, "gold") * L + id(p[i]!, s, i, "predicted")]!++;
      total++;
    }
  }
  return { labels, counts, total };
}

function pad(s: string, width: number, leftAlign = false): string {
  return leftAlign ? s.padEnd(width) : s.padStart(width);
}

/** A fixed-width text table: one row per gold label, one column per predicted label. */
export function renderConfusionMatrix(matrix: ConfusionMatrix): string {
  const { labels, counts } = matrix;
  const L = labels.length;
  const corner = "gold \\ predicted";
  let headWidth = corner.length;
  for (const label of labels) headWidth = Math.max(headWidth, label.length);
  const widths = labels.map((label, j) => {
    let w = label.length;
    for (let i = 0; i < L; i++) w = Math.max(w, String(counts[i * L + j]).length);
    return w;
  });
  const lines = [
    [pad(corner, headWidth, true), ...labels.map((l, j) => pad(l, widths[j]!))].join("  "),
  ];
  for (let i = 0; i < L; i++) {
    const cells = labels.map((_, j) => pad(String(counts[i * L + j]), widths[j]!));
    lines.push([pad(labels[i]!, headWidth, true), ...cells].join("  "));
  }
  return `${lines.map((line) => line.trimEnd()).join("\n")}\n`;
}
