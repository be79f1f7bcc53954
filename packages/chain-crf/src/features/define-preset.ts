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
  /**
   * Whether `__BOS__` / `__EOS__` end the first / last token's list (default true, as CRFsuite's
   * example scripts do; a CRF++ template has no such markers).
   */
  readonly ends?: boolean;
  /** Replaces the column-count check (a template names the line that reads the widest column). */
  readonly check?: (rows: Rows) => void;
}

/**
 * Extra attributes of a token from resources other than the base preset (word clusters, lexicon
 * matches, document-level votes): prepared once per sentence from its rows (the word is column
 * 0), then asked per token after the base preset's attributes of that token.
 */
export interface TokenFeatures<Sentence = unknown> {
  prepare(rows: Rows): Sentence;
  token(sentence: Sentence, t: number, sink: AttributeSink): void;
}

// The definition behind each preset, so that resources can be added per token without a second
// pass over the sequence (which would lose the builder's numbered-name fast path).
const definitions = new WeakMap<Preset, PresetDefinition<unknown>>();

/**
 * A preset from its definition: checks the columns, prepares the sentence, then per token its
 * attributes followed by `__BOS__` on the first and `__EOS__` on the last, as CRFsuite's example
 * scripts end every token's list.
 */
export function definePreset<Sentence>(definition: PresetDefinition<Sentence>): Preset {
  const ends = definition.ends ?? true;
  const emit = (rows: Rows, sink: AttributeSink): void => {
    if (definition.check === undefined) checkColumns(definition.name, definition.columns, rows);
    else definition.check(rows);
    const sentence = definition.prepare(rows);
    const n = rows.length;
    for (let t = 0; t < n; t++) {
      definition.token(rows, sentence, t, sink);
      if (!ends) continue;
      if (t === 0) sink.state(t, "__BOS__", 1);
      if (t === n - 1) sink.state(t, "__EOS__", 1);
    }
  };
  const preset: Preset = {
    name: definition.name,
    description: definition.description,
    columns: definition.columns,
    emit,
    extract: extractWith(emit),
  };
  definitions.set(preset, definition as PresetDefinition<unknown>);
  return preset;
}

/**
 * `base` with each token's attributes followed by those of `extras` (in order). The name and
 * columns stay the base's.
 */
export function withTokenFeatures(
  base: Preset,
  extras: readonly TokenFeatures[],
  description = base.description,
): Preset {
  if (extras.length === 0) return base;
  const definition = definitions.get(base);
  if (definition === undefined) {
    throw new RangeError(`preset ${base.name} was not made by definePreset`);
  }
  return definePreset<{ base: unknown; extras: unknown[] }>({
    ...definition,
    description,
    prepare(rows: Rows) {
      return { base: definition.prepare(rows), extras: extras.map((e) => e.prepare(rows)) };
    },
    token(rows, sentence, t, sink) {
      definition.token(rows, sentence.base, t, sink);
      for (let k = 0; k < extras.length; k++) extras[k]!.token(sentence.extras[k], t, sink);
    },
  });
}

/** The definition behind a preset made by {@link definePreset}, or undefined. */
export function presetDefinition(preset: Preset): PresetDefinition<unknown> | undefined {
  return definitions.get(preset);
}

/** Throws unless every row has at least `columns.length` columns. */
export function checkColumns(preset: string, columns: readonly string[], rows: Rows): void {
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
