import { checkColumns, definePreset, presetDefinition } from "./define-preset.js";
import { FeatureInputError } from "./errors.js";
import type { Preset, Rows } from "./types.js";

/**
 * The largest magnitude of a dense cell: as for CRFsuite's `name:value`, a sentence's score (a
 * sum of value × weight, weights at most 1e9) stays far from overflowing.
 */
export const MAX_DENSE_VALUE = 1e9;

/** A decimal number as a user writes it (`0.25`, `-1`, `3e-4`); no hex, no `Infinity`, no `NaN`. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The attribute a dense column gives its token: `dense[2]` for the file's second column. */
export function denseAttributeName(column: number): string {
  return `dense[${column + 1}]`;
}

/** The columns as the user numbers them (1-based), runs joined: `2–51`, `2–4, 7`. */
export function describeDenseColumns(columns: readonly number[]): string {
  const sorted = [...columns].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(i === j ? `${sorted[i]! + 1}` : `${sorted[i]! + 1}–${sorted[j]! + 1}`);
    i = j + 1;
  }
  return runs.join(", ");
}

interface DenseSentence {
  /** The rows without the dense columns: what the base preset reads. */
  readonly rows: Rows;
  readonly base: unknown;
  /** values[t · d + i]: token t's cell of dense column i. */
  readonly values: Float64Array;
}

/**
 * `base` reading the rows without the dense columns (`columns`, 0-based indices into a token's
 * input columns; the word, column 0, is never one), each of whose cells becomes a real-valued
 * attribute of its token, {@link denseAttributeName} with the cell's number as its value — a
 * user's embeddings as features. A cell that is not a number, or a row too short to have every
 * dense column, is a {@link FeatureInputError} at its token.
 */
export function withDenseColumns(
  base: Preset,
  columns: readonly number[],
  description = base.description,
): Preset {
  const definition = presetDefinition(base);
  if (definition === undefined) {
    throw new RangeError(`preset ${base.name} was not made by definePreset`);
  }
  for (const c of columns) {
    if (!Number.isInteger(c) || c < 1) {
      throw new RangeError(`dense column index ${c}: expected an integer ≥ 1 (0 is the word)`);
    }
  }
  const d = columns.length;
  const widest = Math.max(...columns);
  const dense = new Set(columns);
  const names = columns.map(denseAttributeName);
  const which = `dense columns ${describeDenseColumns(columns)}`;
  return definePreset<DenseSentence>({
    ...definition,
    description,
    // Checked in prepare, on the rows the base reads.
    check: () => {},
    prepare(rows: Rows): DenseSentence {
      const n = rows.length;
      const values = new Float64Array(n * d);
      const kept: string[][] = new Array(n);
      for (let t = 0; t < n; t++) {
        const row = rows[t]!;
        if (row.length <= widest) {
          throw new FeatureInputError(
            "dense",
            t,
            `has ${row.length} column(s); expected at least ${widest + 1} (${which})`,
          );
        }
        for (let i = 0; i < d; i++) {
          const cell = row[columns[i]!]!;
          const value = DECIMAL.test(cell) ? Number(cell) : Number.NaN;
          if (!(Math.abs(value) <= MAX_DENSE_VALUE)) {
            throw new FeatureInputError(
              "dense",
              t,
              `column ${columns[i]! + 1} is ${JSON.stringify(cell)}; expected a number of magnitude at most 1e9 (${which})`,
            );
          }
          values[t * d + i] = value;
        }
        kept[t] = row.filter((_, c) => !dense.has(c));
      }
      if (definition.check === undefined) checkColumns(definition.name, definition.columns, kept);
      else definition.check(kept);
      return { rows: kept, base: definition.prepare(kept), values };
    },
    token(_rows, sentence, t, sink) {
      definition.token(sentence.rows, sentence.base, t, sink);
      const at = t * d;
      for (let i = 0; i < d; i++) sink.state(t, names[i]!, sentence.values[at + i]!);
    },
  });
}
