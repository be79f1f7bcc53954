/**
 * What an opened corpus is, with the helpers that need no file system (the main entry exports
 * them; opening a corpus from a path or the registry is `@lagrange/datasets/node`).
 */
import type { CitationReport } from "../formats/umass.js";
import type { LabelScheme, SequenceLocator } from "../schemes/label-scheme.js";
import { type Sentence, tokenPlace } from "../sentence.js";

export const CORPUS_FORMATS = ["conll", "conllu", "umass", "inline"] as const;
export type CorpusFormat = (typeof CORPUS_FORMATS)[number];

/** A corpus as the apps use it: a registry split or a file, read, with the scheme of its labels. */
export interface Corpus {
  /** What the user named: a path, or `name:split`. */
  readonly label: string;
  readonly sentences: Sentence[];
  readonly format: CorpusFormat;
  /** The registry name when the data came from the registry. */
  readonly dataset?: string;
  /**
   * The scheme the gold labels are written in: the registry catalogue's for a dataset, the
   * format's for UMass (hierarchical BIO), CoNLL-U (plain tags) and inline files (IOB2), and for
   * CoNLL columns the scheme under which the fewest gold sequences are invalid.
   */
  readonly scheme: LabelScheme;
  /** UMass citations: lines repaired or skipped under a lenient `malformed` policy. */
  readonly report?: CitationReport;
}

/**
 * A sentence without gold: a CoNLL sentence keeps every column as input (its last column was no
 * label); formats whose labels are not a file column (UMass, inline tags) drop the label column.
 */
export function withoutLabels(sentence: Sentence, format: CorpusFormat): Sentence {
  const { labels, ...rest } = sentence;
  if (labels === undefined) return sentence;
  return format === "umass" || format === "inline"
    ? { ...rest, columns: rest.columns.filter((column) => column !== labels) }
    : rest;
}

/**
 * The corpus read through its first input column alone (the word), the gold labels kept: how a
 * model that tags raw text (which gives words only) trains and is scored on data with more
 * columns (POS, chunk).
 */
export function wordColumnOnly(corpus: Corpus): Corpus {
  return {
    ...corpus,
    sentences: corpus.sentences.map((s) => {
      const word = s.inputColumns?.[0] ?? s.columns.findIndex((column) => column !== s.labels);
      return { ...s, inputColumns: [Math.max(0, word)] };
    }),
  };
}

/** A {@link SequenceLocator} over a corpus's sentences (for scheme and feature errors). */
export function corpusLocator(corpus: Corpus): SequenceLocator {
  return (sequence, position) => {
    const sentence = corpus.sentences[sequence];
    return sentence === undefined
      ? `${corpus.label}: sentence ${sequence + 1}`
      : tokenPlace(sentence, position);
  };
}
