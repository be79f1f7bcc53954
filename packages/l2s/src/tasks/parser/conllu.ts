import { CONLLU_FIELDS, type ConlluSentence, DataFormatError } from "@lagrange/datasets";
import type { ParseExample } from "./parser-task.js";

const FORM = CONLLU_FIELDS.indexOf("FORM");
const UPOS = CONLLU_FIELDS.indexOf("UPOS");
const XPOS = CONLLU_FIELDS.indexOf("XPOS");
const HEAD = CONLLU_FIELDS.indexOf("HEAD");
const DEPREL = CONLLU_FIELDS.indexOf("DEPREL");

export interface ConlluParseOptions {
  /** Which field is the POS tag the parser reads. Default `UPOS`. */
  readonly tagField?: "UPOS" | "XPOS";
  /** Read `nsubj:pass` as `nsubj` (the UD universal relations only). Default false. */
  readonly stripRelationSubtypes?: boolean;
}

/**
 * Parser examples from CoNLL-U sentences (basic trees: FORM, UPOS or XPOS, HEAD, DEPREL; the
 * multiword-token and empty-node lines are not words and are left aside by the reader).
 *
 * A sentence whose HEAD fields are all `_` has no gold tree (input to parse); likewise DEPREL.
 * Otherwise every HEAD must be an integer 0…n other than the word's own ID, and the heads must
 * form a tree: a cycle is an annotation error and is rejected (naming its words), not
 * tolerated, since a tree is what both the oracles' loss and the attachment scores assume. Several
 * words with HEAD 0 are accepted (CoNLL-X treebanks have multi-root sentences, and arc-hybrid
 * builds them). Errors are {@link DataFormatError}s at the word's `file:line`.
 */
export function parseExamplesFromConllu(
  sentences: readonly ConlluSentence[],
  options: ConlluParseOptions = {},
): ParseExample[] {
  const tagColumn = (options.tagField ?? "UPOS") === "XPOS" ? XPOS : UPOS;
  const strip = options.stripRelationSubtypes ?? false;
  return sentences.map((sentence, index) => {
    const columns = sentence.columns;
    if (columns.length !== CONLLU_FIELDS.length) {
      throw new RangeError(
        `sentence ${index + 1}: ${columns.length} columns; expected the 10 CoNLL-U fields`,
      );
    }
    const words = columns[FORM]!;
    const n = words.length;
    const place = (w: number): Place => wordPlace(sentence, index, w);
    const headField = columns[HEAD]!;
    const example: {
      words: string[];
      tags: string[];
      heads?: Int32Array;
      relations?: string[];
      source?: string;
    } = { words, tags: columns[tagColumn]! };
    if (sentence.source !== undefined) {
      example.source = `${sentence.source.file}:${sentence.source.line}`;
    }
    if (!headField.every((h) => h === "_")) {
      const heads = new Int32Array(n);
      for (let w = 1; w <= n; w++) {
        const text = headField[w - 1]!;
        if (!/^(0|[1-9][0-9]*)$/.test(text) || Number(text) > n || Number(text) === w) {
          const why =
            text === "_"
              ? "HEAD _ in a sentence whose other words have heads"
              : `HEAD ${JSON.stringify(text)}: expected an integer 0…${n} other than the word's own ID ${w}`;
          throw place(w).error(why, HEAD + 1);
        }
        heads[w - 1] = Number(text);
      }
      const cycle = findCycle(heads);
      if (cycle !== undefined) {
        throw place(cycle[0]!).error(
          `the HEAD values form a cycle ${cycle.join(" → ")} → ${cycle[0]} (each word's head is the next): expected a tree`,
          HEAD + 1,
        );
      }
      example.heads = heads;
    }
    const relationField = columns[DEPREL]!;
    if (!relationField.every((r) => r === "_")) {
      const underscore = relationField.indexOf("_");
      if (underscore >= 0) {
        throw place(underscore + 1).error(
          "DEPREL _ in a sentence whose other words have relations",
          DEPREL + 1,
        );
      }
      example.relations = strip
        ? relationField.map((r) => {
            const colon = r.indexOf(":");
            return colon < 0 ? r : r.slice(0, colon);
          })
        : relationField;
    }
    return example;
  });
}

interface Place {
  error(detail: string, column: number): Error;
}

/** Word w's line: after the sentence's comments and the extra lines (ranges, empty nodes) before it. */
function wordPlace(sentence: ConlluSentence, index: number, w: number): Place {
  const source = sentence.source;
  if (source === undefined) {
    return {
      error: (detail, column) =>
        new RangeError(`sentence ${index + 1}, word ${w}, field ${column}: ${detail}`),
    };
  }
  let extra = 0;
  for (const e of sentence.extraLines) if (e.before <= w - 1) extra++;
  const line = source.line + sentence.comments.length + extra + (w - 1);
  return { error: (detail, column) => new DataFormatError(source.file, line, detail, column) };
}

/** A cycle of the head function (words in order along it), or undefined when all reach ROOT. */
function findCycle(heads: Int32Array): number[] | undefined {
  const n = heads.length;
  for (let w = 1; w <= n; w++) {
    let h = w;
    let steps = 0;
    while (h !== 0 && steps <= n) {
      h = heads[h - 1]!;
      steps++;
    }
    if (h === 0) continue;
    // h is now on the cycle (n + 1 steps without reaching ROOT).
    const cycle = [h];
    for (let k = heads[h - 1]!; k !== h; k = heads[k - 1]!) cycle.push(k);
    const first = cycle.indexOf(Math.min(...cycle));
    return [...cycle.slice(first), ...cycle.slice(0, first)];
  }
  return undefined;
}

/**
 * The sentence with its HEAD and DEPREL fields replaced by a parse (heads: word w's at w − 1, 0
 * for ROOT), ready for datasets' CoNLL-U writer. Everything else is the sentence's own: comments,
 * multiword-token and empty-node lines, and DEPS (the enhanced graph, which is the annotator's
 * and is not re-derived from the new tree). Without `relations`, DEPREL becomes `_`.
 */
export function withParse(
  sentence: ConlluSentence,
  heads: ArrayLike<number>,
  relations?: readonly string[],
): ConlluSentence {
  const n = sentence.tokens.length;
  if (heads.length !== n) {
    throw new RangeError(`${describe(sentence)}: ${n} words but ${heads.length} heads`);
  }
  if (relations !== undefined && relations.length !== n) {
    throw new RangeError(`${describe(sentence)}: ${n} words but ${relations.length} relations`);
  }
  const headField = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const h = heads[i]!;
    if (!Number.isInteger(h) || h < 0 || h > n) {
      throw new RangeError(`${describe(sentence)}: word ${i + 1}: head ${h} is not 0…${n}`);
    }
    headField[i] = String(h);
  }
  const relationField = relations === undefined ? new Array<string>(n).fill("_") : [...relations];
  const columns = [...sentence.columns];
  columns[HEAD] = headField;
  columns[DEPREL] = relationField;
  const out: ConlluSentence = { ...sentence, columns };
  // `labels` is one of the columns itself; keep it so where it is HEAD or DEPREL.
  if (sentence.labels === sentence.columns[HEAD]) out.labels = headField;
  if (sentence.labels === sentence.columns[DEPREL]) out.labels = relationField;
  return out;
}

function describe(sentence: ConlluSentence): string {
  const id = sentence.meta.sent_id;
  const where =
    sentence.source === undefined ? "" : `${sentence.source.file}:${sentence.source.line}`;
  if (id !== undefined) return where === "" ? `sentence ${id}` : `${where} (sentence ${id})`;
  return where === "" ? "sentence" : where;
}
