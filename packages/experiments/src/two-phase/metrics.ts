import {
  evaluateChunks,
  evaluateSegments,
  evaluateTokens,
  f1FromCounts,
  type LabelSequences,
  type PrecisionRecallF1,
  pairedBootstrap,
  sentenceChunkCounts,
} from "@lagrange/datasets";
import { median } from "@lagrange/recipes";
import type { FieldEvaluation } from "./data.js";

/**
 * The entity or field type of a label: its B-/I- prefix removed at every level (`B-author` →
 * `author`, `I-venue/B-journal` → `venue/journal`); `O` stays `O`. fersini2014's Eqs. (31)–(34)
 * count tokens per such type.
 */
export function labelType(label: string): string {
  return label.includes("/")
    ? label
        .split("/")
        .map((part) => part.replace(/^[BI]-/, ""))
        .join("/")
    : label.replace(/^[BI]-/, "");
}

function types(sequences: LabelSequences): string[][] {
  return sequences.map((labels) => labels.map(labelType));
}

/** Precision, recall and F1 in percent. */
export interface Prf {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

function percent(x: PrecisionRecallF1): Prf {
  return { precision: 100 * x.precision, recall: 100 * x.recall, f1: 100 * x.f1 };
}

/** Token-level P/R/F of one type, in percent, and its gold tokens. */
export interface TypeScores extends Prf {
  readonly support: number;
}

/** fersini2014's token-level figures (Eqs. 31–34) over label types, in percent. */
export interface TokenScores {
  /** Eq. (34): tokens whose type is right, over all tokens. */
  readonly accuracy: number;
  /** Tokens whose full label (B-/I- included) is right. */
  readonly labelAccuracy: number;
  /** Micro and macro averages over every type, `O` included (micro P = R = F = accuracy). */
  readonly withOutside: { readonly micro: Prf; readonly macro: Prf };
  /** The same over the types other than `O`. */
  readonly withoutOutside: { readonly micro: Prf; readonly macro: Prf };
  /** Per type (`O` included), Eqs. (31)–(33). */
  readonly perType: Readonly<Record<string, TypeScores>>;
}

export function tokenScores(gold: LabelSequences, predicted: LabelSequences): TokenScores {
  const g = types(gold);
  const p = types(predicted);
  const all = evaluateTokens(g, p, { includeOutside: true });
  const entities = evaluateTokens(g, p, { includeOutside: false });
  const perType: Record<string, TypeScores> = {};
  for (const [type, e] of Object.entries(all.perLabel)) {
    perType[type] = { ...percent(e), support: e.support };
  }
  return {
    accuracy: 100 * all.accuracy,
    labelAccuracy: 100 * evaluateTokens(gold, predicted).accuracy,
    withOutside: { micro: percent(all.micro), macro: percent(all.macro) },
    withoutOutside: { micro: percent(entities.micro), macro: percent(entities.macro) },
    perType,
  };
}

/** Field (chunk or segment) precision, recall and F1 in percent. */
export interface FieldPrf extends Prf {
  /** What was scored: conlleval chunks, or segments at every level of the hierarchy. */
  readonly unit: FieldEvaluation;
}

export function fieldPrf(
  gold: LabelSequences,
  predicted: LabelSequences,
  unit: FieldEvaluation,
): FieldPrf {
  const e = unit === "chunks" ? evaluateChunks(gold, predicted) : evaluateSegments(gold, predicted);
  return { unit, ...percent(e) };
}

/** Per sentence: (correct, predicted, gold) fields, row-major sentences × 3. */
export function sentenceFieldCounts(
  gold: LabelSequences,
  predicted: LabelSequences,
  unit: FieldEvaluation,
): Float64Array {
  if (unit === "chunks") return sentenceChunkCounts(gold, predicted);
  const out = new Float64Array(gold.length * 3);
  gold.forEach((g, s) => {
    const e = evaluateSegments([g], [predicted[s]!]);
    out.set([e.correctChunks, e.predictedChunks, e.goldChunks], s * 3);
  });
  return out;
}

/** One paired bootstrap test of a system against the baseline, in percentage points. */
export interface Significance {
  /** metric(system) − metric(baseline). */
  readonly delta: number;
  /** Two-sided. */
  readonly pValue: number;
  readonly interval: readonly [number, number];
}

export interface SignificanceOptions {
  readonly samples: number;
  readonly seed: number;
  readonly signal?: AbortSignal;
}

/**
 * Paired bootstrap over sentences (two-sided) of a system against a baseline on the same gold:
 * token accuracy over types (Eq. 34) and field F1.
 */
export function significanceOf(
  gold: LabelSequences,
  system: LabelSequences,
  baseline: LabelSequences,
  unit: FieldEvaluation,
  options: SignificanceOptions,
): { readonly accuracy: Significance; readonly f1: Significance } {
  const g = types(gold);
  const correct = (predicted: LabelSequences): Float64Array => {
    const p = types(predicted);
    const out = new Float64Array(g.length * 2);
    g.forEach((labels, s) => {
      let right = 0;
      labels.forEach((label, i) => {
        if (p[s]![i] === label) right++;
      });
      out.set([right, labels.length], s * 2);
    });
    return out;
  };
  const bootstrap = { samples: options.samples, seed: options.seed };
  const run = (
    a: Float64Array,
    b: Float64Array,
    width: number,
    metric: (sums: Float64Array) => number,
  ): Significance => {
    const r = pairedBootstrap(
      { units: gold.length, a, b, width, metric },
      { ...bootstrap, ...(options.signal === undefined ? {} : { signal: options.signal }) },
    );
    return { delta: r.delta, pValue: r.pValue, interval: r.interval };
  };
  return {
    accuracy: run(correct(system), correct(baseline), 2, (sums) =>
      sums[1]! > 0 ? (100 * sums[0]!) / sums[1]! : 0,
    ),
    f1: run(
      sentenceFieldCounts(gold, system, unit),
      sentenceFieldCounts(gold, baseline, unit),
      3,
      (sums) => 100 * f1FromCounts(sums),
    ),
  };
}

/** The q-quantile by the nearest-rank rule (0 for no values). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

/** Median, 95th percentile (nearest rank) and maximum of per-sentence times, in milliseconds. */
export interface TimeDistribution {
  readonly sentences: number;
  readonly median: number;
  readonly p95: number;
  readonly max: number;
}

export function timeDistribution(ms: readonly number[]): TimeDistribution {
  return {
    sentences: ms.length,
    median: ms.length === 0 ? 0 : median(ms),
    p95: quantile(ms, 0.95),
    max: ms.length === 0 ? 0 : Math.max(...ms),
  };
}
