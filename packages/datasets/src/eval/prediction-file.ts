import { LagrangeError } from "@lagrange/core";
import { DataFormatError } from "../formats/errors.js";
import { inferScheme } from "../schemes/label-scheme.js";
import { evaluateSegments, type SegmentEvaluation } from "./chunks.js";
import { type ChunkEvaluation, type ConllevalOptions, evaluateConllText } from "./conlleval.js";
import { scoreLabelling } from "./labelling.js";

/**
 * A file of CoNLL columns (gold second to last, the prediction last) as `lagrange eval` scores
 * it: hierarchical labels (`I-authors/B-person`) by their segments at every level, every other
 * labelling by its chunks in conlleval's figures.
 */
export type ColumnsScore =
  | { readonly kind: "segments"; readonly evaluation: SegmentEvaluation }
  | { readonly kind: "chunks"; readonly evaluation: ChunkEvaluation };

/**
 * Scores a file of CoNLL columns. `hierarchical` forces (true) or forbids (false) the evaluation
 * per segment; by default it is chosen when the gold column holds hierarchical labels. The scheme
 * the gold column fits decides how chunks are read (as `lagrange tag`'s report does): a scheme
 * conlleval misreads (BIOES, BILOU) is scored by its spans, any other by conlleval itself (with its
 * options). With `raw` or `delimiter` the columns are conlleval's alone.
 */
export function scoreLabelColumns(
  text: string,
  options: ConllevalOptions & { readonly hierarchical?: boolean } = {},
): ColumnsScore {
  const { hierarchical: forced, ...conllOptions } = options;
  const file = options.file ?? "<input>";
  const columns =
    options.raw || options.delimiter !== undefined ? undefined : readableColumns(text, file);
  const scheme = columns === undefined ? undefined : inferScheme(columns.gold);
  const hierarchical = forced ?? (scheme === "hierarchical-BIO" || looksHierarchical(text));
  if (hierarchical) {
    const { gold, predicted } = columns ?? labelColumns(text, file);
    return { kind: "segments", evaluation: evaluateSegments(gold, predicted) };
  }
  if (columns !== undefined && forced === undefined && SPAN_SCHEMES.has(scheme!)) {
    const score = scoreLabelling(columns.gold, columns.predicted, scheme);
    if (score.kind === "chunk-f1") return { kind: "chunks", evaluation: score.evaluation };
  }
  return { kind: "chunks", evaluation: evaluateConllText(text, conllOptions) };
}

/** Chunk schemes conlleval.pl misreads (S-, U-, L-): scored by their spans. */
const SPAN_SCHEMES: ReadonlySet<string> = new Set(["BIOES", "BILOU"]);

const HIERARCHICAL_LABEL = /^[BIES]-[^/\s]+\/\S/;

/** True when the gold column carries hierarchical labels such as `I-authors/B-person`. */
function looksHierarchical(text: string): boolean {
  let seen = 0;
  for (const line of text.split("\n", 5000)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 2) continue;
    if (HIERARCHICAL_LABEL.test(fields[fields.length - 2]!)) return true;
    if (++seen > 2000) break;
  }
  return false;
}

interface LabelColumns {
  readonly gold: string[][];
  readonly predicted: string[][];
}

/** Gold = second-to-last column, prediction = last column; blank lines end sentences. */
function labelColumns(text: string, file: string): LabelColumns {
  const gold: string[][] = [];
  const predicted: string[][] = [];
  let g: string[] = [];
  let p: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("-DOCSTART-")) {
      if (g.length > 0) {
        gold.push(g);
        predicted.push(p);
        g = [];
        p = [];
      }
      continue;
    }
    const fields = line.split(/\s+/);
    if (fields.length < 2) {
      throw new DataFormatError(
        file,
        i + 1,
        "expected at least 2 columns (gold, prediction), got 1",
      );
    }
    g.push(fields[fields.length - 2]!);
    p.push(fields[fields.length - 1]!);
  }
  if (g.length > 0) {
    gold.push(g);
    predicted.push(p);
  }
  return { gold, predicted };
}

/** The label columns where every line has them; else undefined, for conlleval to say what is wrong. */
function readableColumns(text: string, file: string): LabelColumns | undefined {
  try {
    return labelColumns(text, file);
  } catch {
    return undefined;
  }
}

/** `lagrange tag`'s output of a CoNLL-U file, per sentence: both POS fields and the prediction. */
export interface TaggedConllu {
  readonly upos: string[][];
  readonly xpos: string[][];
  readonly predicted: string[][];
}

/** A word line of CoNLL-U with the prediction after MISC: at least 11 fields, ID first. */
const CONLLU_FIELDS_AND_PREDICTION = 11;

/**
 * Reads `text` as `lagrange tag` writes a CoNLL-U input (its ten fields, space-separated, then
 * the predicted tag; FORM and LEMMA may hold spaces, so fields are counted from the end), when its
 * first sentence looks so (word IDs 1, 2, … and 11 fields or more) or when `force` says so.
 * Undefined otherwise: conlleval's columns. A line that is not a word line is bad input at its
 * `file`:line.
 */
export function readTaggedConllu(
  text: string,
  file: string,
  force = false,
): TaggedConllu | undefined {
  const lines = text.split(/\r?\n/);
  if (!force && !firstSentenceIsConllu(lines)) return undefined;
  const upos: string[][] = [];
  const xpos: string[][] = [];
  const predicted: string[][] = [];
  let u: string[] = [];
  let x: string[] = [];
  let p: string[] = [];
  const flush = () => {
    if (p.length === 0) return;
    upos.push(u);
    xpos.push(x);
    predicted.push(p);
    u = [];
    x = [];
    p = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") {
      flush();
      continue;
    }
    if (line.startsWith("#")) continue;
    const fields = line.split(/\s+/);
    const n = fields.length;
    if (n < CONLLU_FIELDS_AND_PREDICTION || !/^[1-9][0-9]*$/.test(fields[0]!)) {
      throw new DataFormatError(
        file,
        i + 1,
        `found ${n} field${n === 1 ? "" : "s"}${n > 0 ? ` starting with ${JSON.stringify(fields[0]!.slice(0, 20))}` : ""}: expected lagrange tag's output of CoNLL-U (the ten CoNLL-U fields, a word ID first, then the predicted tag)`,
      );
    }
    // From the end: prediction, MISC, DEPS, DEPREL, HEAD, FEATS, XPOS, UPOS.
    p.push(fields[n - 1]!);
    x.push(fields[n - 7]!);
    u.push(fields[n - 8]!);
  }
  flush();
  if (predicted.length === 0) {
    throw new LagrangeError(
      "bad-input",
      `${file}: no word line: expected lagrange tag's output of CoNLL-U`,
    );
  }
  return { upos, xpos, predicted };
}

function firstSentenceIsConllu(lines: readonly string[]): boolean {
  let words = 0;
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "") {
      if (words > 0) break;
      continue;
    }
    if (line.startsWith("#")) continue;
    const fields = line.split(/\s+/);
    if (fields.length < CONLLU_FIELDS_AND_PREDICTION || fields[0] !== String(words + 1)) {
      return false;
    }
    // HEAD, counted from the end: a word number or `_`.
    if (!/^([0-9]+|_)$/.test(fields[fields.length - 5]!)) return false;
    words++;
  }
  return words > 0;
}
