import type { Sentence } from "@lagrange/datasets";
import type { ConfidenceRecord, DecodingStats } from "@lagrange/recipes";

/**
 * CoNLL output, one line per token: the input's columns (gold included, for conlleval) and the
 * predicted label last, a blank line after each sentence — what `lagrange tag` has always written.
 * `after`: more columns after the prediction (`--marginals`: the predicted label's marginal).
 */
export function conllRecord(
  sentence: Sentence,
  predicted: readonly string[],
  after: readonly (readonly (string | number)[])[] = [],
): string {
  const { columns, tokens } = sentence;
  let text = "";
  for (let t = 0; t < tokens.length; t++) {
    let line = "";
    for (const column of columns) line += `${column[t]} `;
    line += predicted[t];
    for (const column of after) line += ` ${column[t]}`;
    text += `${line}\n`;
  }
  return `${text}\n`;
}

/** The CoNLL columns of a sentence's confidence: the predicted label's marginal, if asked for. */
export function confidenceColumns(
  confidence: ConfidenceRecord | undefined,
): readonly (readonly number[])[] {
  return confidence?.confidence === undefined ? [] : [confidence.confidence];
}

/** NDJSON fields of a sentence's confidence (`marginals`, `marginalsOf`, `confidence`, `probability`). */
export function confidenceFields(
  confidence: ConfidenceRecord | undefined,
): Readonly<Record<string, unknown>> {
  return confidence === undefined ? {} : { ...confidence };
}

/**
 * NDJSON output, one sentence per line: `{"tokens", "columns"? (the input columns when there are
 * more than the tokens), "gold"? (the input's gold labels), "labels" (predicted)}`, and with
 * `explain` the decoder's figures and the constraints that fired.
 */
export function ndjsonRecord(
  sentence: Sentence,
  predicted: readonly string[],
  stats: DecodingStats | undefined,
  fields: Readonly<Record<string, unknown>> = {},
): string {
  const { tokens, labels } = sentence;
  const inputs =
    labels === undefined ? sentence.columns : sentence.columns.filter((c) => c !== labels);
  const record: Record<string, unknown> = { tokens };
  if (inputs.length > 1) record.columns = inputs;
  if (labels !== undefined) record.gold = labels;
  record.labels = predicted;
  Object.assign(record, fields);
  if (stats !== undefined) {
    record.decoding = {
      iterations: stats.iterations,
      status: stats.status,
      certified: stats.certified,
      primal: finite(stats.primal),
      dual: stats.dual === undefined ? null : finite(stats.dual),
      gap: finite(stats.gap),
      violated: stats.violated,
    };
    record.fired = stats.fired ?? [];
  }
  return `${JSON.stringify(record)}\n`;
}

/** JSON has no infinities: an unbounded figure is written as a string. */
function finite(x: number): number | string {
  return Number.isFinite(x) ? x : String(x);
}
