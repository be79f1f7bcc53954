import { extractWith } from "./builder.js";
import { FeatureInputError } from "./errors.js";
import type { AttributeSink, Preset, Rows } from "./types.js";

/** The part of a token-by-token preset that is its own: which attributes each token gets. */
export interface PresetDefinition<Sentence> {
  readonly name: string;
  readonly description: string;
  /** Names of the input columns read, in order; rows with fewer are rejected. */
  readonly columns: readonly string[];
  /** Per-sentence values the tokens' attributes look up (normalised words, neighbours' …). */
  prepare(rows: Rows): Sentence;
  /** Pushes token t's attributes into `sink`, in order. */
  token(rows: Rows, sentence: Sentence, t: number, sink: AttributeSink): void;
}

/**
 * A preset from its definition: checks the columns, prepares the sentence, then per token its
 * attributes followed by `__BOS__` on the first and `__EOS__` on the last, as CRFsuite's example
 * scripts end every token's list.
 */
export function definePreset<Sentence>(definition: PresetDefinition<Sentence>): Preset {
  const emit = (rows: Rows, sink: AttributeSink): void => {
    checkColumns(definition.name, definition.columns, rows);
    const sentence = definition.prepare(rows);
    const n = rows.length;
    for (let t = 0; t < n; t++) {
      definition.token(rows, sentence, t, sink);
      if (t === 0) sink.state(t, "__BOS__", 1);
      if (t === n - 1) sink.state(t, "__EOS__", 1);
    }
  };
  return {
    name: definition.name,
    description: definition.description,
    columns: definition.columns,
    emit,
    extract: extractWith(emit),
  };
}

/** Throws unless every row has at least `columns.length` columns. */
function checkColumns(preset: string, columns: readonly string[], rows: Rows): void {
  const need = columns.length;
  for (let t = 0; t < rows.length; t++) {
    if (rows[t]!.length < need) {
      throw new FeatureInputError(
        preset,
        t,
        `has ${rows[t]!.length} column(s); expected ${need}: ${columns.join(", ")}`,
      );
    }
  }
}
