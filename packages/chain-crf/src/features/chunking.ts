import { definePreset } from "./define-preset.js";
import { escapeColons, type FieldTemplate, FieldTemplateSet } from "./field-templates.js";
import type { AttributeSink, Preset, Rows } from "./types.js";

/** The `templates` tuple of CRFsuite's `example/chunking.py`, in its order. */
export const CHUNKING_TEMPLATES: readonly FieldTemplate[] = [
  [["w", -2]],
  [["w", -1]],
  [["w", 0]],
  [["w", 1]],
  [["w", 2]],
  [
    ["w", -1],
    ["w", 0],
  ],
  [
    ["w", 0],
    ["w", 1],
  ],
  [["pos", -2]],
  [["pos", -1]],
  [["pos", 0]],
  [["pos", 1]],
  [["pos", 2]],
  [
    ["pos", -2],
    ["pos", -1],
  ],
  [
    ["pos", -1],
    ["pos", 0],
  ],
  [
    ["pos", 0],
    ["pos", 1],
  ],
  [
    ["pos", 1],
    ["pos", 2],
  ],
  [
    ["pos", -2],
    ["pos", -1],
    ["pos", 0],
  ],
  [
    ["pos", -1],
    ["pos", 0],
    ["pos", 1],
  ],
  [
    ["pos", 0],
    ["pos", 1],
    ["pos", 2],
  ],
];

export interface ChunkingOptions {
  /**
   * Write `:` as `__COLON__`, as chunking.py's output does (crfutils.escape). Default true, so
   * names equal those in a CRFsuite data file made by the script.
   */
  readonly escapeColons?: boolean;
}

const COLUMNS = ["word", "pos"] as const;

/**
 * The attributes of CRFsuite's `example/chunking.py` (CRFsuite 0.12): words and POS tags in a ±2
 * window, word bigrams w[-1]|w[0] and w[0]|w[1], POS bigrams and trigrams, named and ordered as
 * the script does (`w[0]=Confidence`, `pos[-1]|pos[0]=NN|IN`); a template reaching outside the
 * sentence gives nothing; `__BOS__` / `__EOS__` end the first / last token's list.
 */
export function chunkingPreset(options: ChunkingOptions = {}): Preset {
  const escaping = options.escapeColons ?? true;
  const templates = new FieldTemplateSet(CHUNKING_TEMPLATES, ["w", "pos"]);
  return definePreset({
    name: "chunking",
    description:
      "CRFsuite's example/chunking.py: words and POS in a ±2 window, word bigrams, POS bigrams and trigrams, __BOS__/__EOS__",
    columns: COLUMNS,
    prepare(rows: Rows): string[][] {
      const n = rows.length;
      const words = new Array<string>(n);
      const tags = new Array<string>(n);
      for (let t = 0; t < n; t++) {
        const row = rows[t]!;
        words[t] = templates.canonical(escaping ? escapeColons(row[0]!) : row[0]!);
        tags[t] = templates.canonical(escaping ? escapeColons(row[1]!) : row[1]!);
      }
      return [words, tags];
    },
    token(rows: Rows, values: string[][], t: number, sink: AttributeSink): void {
      templates.apply(values, rows.length, t, sink);
    },
  });
}
