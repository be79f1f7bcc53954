import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConllFile } from "../formats/conll.js";
import { readInlineTagsFile } from "../formats/inline.js";
import { readUmassCitationsFile } from "../formats/umass.js";
import { findMirrorDir } from "../registry/resolve.js";
import { SCHEME_NAMES, type SchemeName, type SchemeOptions } from "./labels.js";
import { convertScheme, extractSpans } from "./spans.js";
import { allowedTransitions, isValidSequence } from "./validity.js";

const mirror = findMirrorDir();
const fileIn = (relative: string): string | undefined => {
  if (mirror === undefined) return undefined;
  const path = join(mirror, relative);
  return existsSync(path) ? path : undefined;
};
const why = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

function spanKey(labels: readonly string[], scheme: SchemeName, options: SchemeOptions): string {
  return extractSpans(labels, scheme, options)
    .map((s) => `${s.level}:${s.type}:${s.start}:${s.end}`)
    .join(" ");
}

/**
 * Every sentence: through every scheme and back is the identity when the sentence is valid in
 * its own scheme, and never changes the spans. The mask agrees with the validity check.
 */
function checkRoundTrips(
  sentences: readonly (readonly string[])[],
  scheme: SchemeName,
  options: SchemeOptions = {},
): { sentences: number; tokens: number; invalid: number; spans: number; failures: string[] } {
  let invalid = 0;
  let spanCount = 0;
  let tokens = 0;
  // Plain comparisons, one expect at the end: vitest's expect is too slow for millions of calls.
  const failures: string[] = [];
  const fail = (index: number, what: string): void => {
    if (failures.length < 5) failures.push(`sentence ${index}: ${what}`);
  };
  const inventory = [...new Set(sentences.flat())];
  const ids = new Map(inventory.map((name, id) => [name, id]));
  const mask = allowedTransitions(inventory, scheme, options);
  sentences.forEach((labels, index) => {
    tokens += labels.length;
    const valid = isValidSequence(labels, scheme, options);
    spanCount += extractSpans(labels, scheme, options).length;
    if (!valid) invalid++;
    let feasible =
      labels.length === 0 ||
      (mask.allowedStart[ids.get(labels[0]!)!] === 1 &&
        mask.allowedEnd[ids.get(labels.at(-1)!)!] === 1);
    for (let i = 1; i < labels.length; i++) {
      if (
        mask.allowed[ids.get(labels[i - 1]!)! * mask.allowedStart.length + ids.get(labels[i]!)!] ===
        0
      )
        feasible = false;
    }
    if (feasible !== valid) fail(index, "mask and validity check disagree");
    // For a valid sentence, coming back unchanged implies the spans were kept in between
    // (encoding is one-to-one on span sets); an invalid one is checked span by span.
    const spans = valid ? "" : spanKey(labels, scheme, options);
    const original = labels.join("\u0000");
    for (const other of SCHEME_NAMES) {
      const there = convertScheme(labels, scheme, other, options);
      const back = convertScheme(there, other, scheme, options);
      if (valid && back.join("\u0000") !== original)
        fail(index, `${scheme} → ${other} → ${scheme} differs`);
      if (!valid && spanKey(there, other, options) !== spans)
        fail(index, `spans changed in ${other}`);
      if (!valid && spanKey(back, scheme, options) !== spans)
        fail(index, `spans changed back from ${other}`);
    }
  });
  return { sentences: sentences.length, tokens, invalid, spans: spanCount, failures };
}

interface RealLabels {
  /** Mirror-relative file. */
  readonly file: string;
  /** Which tag column, where a file has several. */
  readonly column?: string;
  readonly scheme: SchemeName;
  readonly options?: SchemeOptions;
  /** A lower bound on the sentence count, so that a reader that silently drops data fails. */
  readonly atLeast: number;
  /** Chunks / entities decoded, as the folder's SOURCE.md counts them. */
  readonly spans?: number;
  /** Every sentence is valid in its scheme (false where SOURCE.md documents stray tags). */
  readonly allValid?: boolean;
  readonly load: (path: string) => Promise<(readonly string[])[]>;
}

const conllColumn =
  (column: number, transform: (label: string) => string = (l) => l) =>
  async (path: string) =>
    (await readConllFile(path)).map((s) => s.columns.at(column)!.map(transform));
const umassLabels = async (path: string) =>
  (await readUmassCitationsFile(path, { malformed: "skip" })).sentences.map((s) => s.labels!);
const inlineBio = async (path: string) =>
  (await readInlineTagsFile(path)).map((s) => s.columns[1]!);

/**
 * Every labelled corpus of the mirror whose labels are chunks (POS tags are not). Tag columns:
 * conll2003 has IOB1 chunks (column 2) and IOB1 NER (last); Ritter's chunk.txt writes its IOB2
 * tags in lower case.
 */
const REAL_LABELS: RealLabels[] = [
  {
    file: "conll2000/train.txt",
    scheme: "IOB2",
    atLeast: 8_000,
    spans: 106_978,
    load: conllColumn(-1),
  },
  {
    file: "conll2000/test.txt",
    scheme: "IOB2",
    atLeast: 2_000,
    spans: 23_852,
    load: conllColumn(-1),
  },
  {
    file: "conll2003/eng.train",
    column: "NER",
    scheme: "IOB1",
    atLeast: 14_000,
    spans: 23_499,
    load: conllColumn(-1),
  },
  {
    file: "conll2003/eng.train",
    column: "chunks",
    scheme: "IOB1",
    atLeast: 14_000,
    load: conllColumn(2),
  },
  {
    file: "conll2003/eng.testa",
    column: "NER",
    scheme: "IOB1",
    atLeast: 3_000,
    spans: 5_942,
    load: conllColumn(-1),
  },
  {
    file: "conll2003/eng.testa",
    column: "chunks",
    scheme: "IOB1",
    atLeast: 3_000,
    load: conllColumn(2),
  },
  { file: "wnut16/train", scheme: "IOB2", atLeast: 2_000, spans: 1_496, load: conllColumn(-1) },
  { file: "wnut16/dev", scheme: "IOB2", atLeast: 1_000, spans: 661, load: conllColumn(-1) },
  {
    file: "wnut17/wnut17train.conll",
    scheme: "IOB2",
    atLeast: 3_000,
    spans: 1_975,
    load: conllColumn(-1),
  },
  {
    file: "wnut17/emerging.dev.conll",
    scheme: "IOB2",
    atLeast: 1_000,
    spans: 836,
    load: conllColumn(-1),
  },
  {
    file: "twitter_ritter2011/ner.txt",
    scheme: "IOB2",
    atLeast: 2_000,
    spans: 1_496,
    load: conllColumn(-1),
  },
  {
    file: "twitter_ritter2011/chunk.txt",
    scheme: "IOB2",
    atLeast: 700,
    spans: 8_294,
    load: conllColumn(-1, (l) => l.toUpperCase()),
  },
  {
    file: "umass_citation_flat_iesl/train.txt",
    scheme: "IOB2",
    atLeast: 1_400,
    spans: 9_814,
    load: conllColumn(-1),
  },
  {
    file: "umass_citation_flat_iesl/dev.txt",
    scheme: "IOB2",
    atLeast: 600,
    spans: 4_303,
    load: conllColumn(-1),
  },
  {
    file: "umass_citation/training.docs",
    scheme: "IOB2",
    options: { levelSeparator: "/" },
    atLeast: 1_400,
    allValid: true,
    load: umassLabels,
  },
  {
    file: "umass_citation/dev.docs",
    scheme: "IOB2",
    options: { levelSeparator: "/" },
    atLeast: 600,
    allValid: true,
    load: umassLabels,
  },
  {
    file: "cora/tagged_references.txt",
    scheme: "IOB2",
    atLeast: 500,
    allValid: true,
    load: inlineBio,
  },
  {
    file: "cora/tagged_headers.txt",
    scheme: "IOB2",
    atLeast: 900,
    allValid: true,
    load: inlineBio,
  },
];

describe("scheme conversions on real corpora", () => {
  for (const entry of REAL_LABELS) {
    const path = fileIn(entry.file);
    const column = entry.column === undefined ? "" : ` ${entry.column}`;
    const hierarchical = entry.options?.levelSeparator === undefined ? "" : ", hierarchical";
    const skipped =
      mirror === undefined
        ? ` — skipped: ${why}`
        : path === undefined
          ? " — skipped: not in the mirror"
          : "";
    it.skipIf(path === undefined)(
      `${entry.file}${column} (${entry.scheme}${hierarchical}) round-trips through every scheme${skipped}`,
      async () => {
        const result = checkRoundTrips(await entry.load(path!), entry.scheme, entry.options);
        expect(result.failures).toEqual([]);
        if (entry.allValid === true) expect(result.invalid).toBe(0);
        expect(result.sentences).toBeGreaterThanOrEqual(entry.atLeast);
        if (entry.spans !== undefined) expect(result.spans).toBe(entry.spans);
      },
    );
  }
});
