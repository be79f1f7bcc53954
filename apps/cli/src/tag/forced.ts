import type { LabelRestriction } from "@lagrange/core";
import { type Corpus, parsePartialLabel, type Sentence, tokenPlace } from "@lagrange/datasets";
import { badInputError } from "../exit-codes.js";

/**
 * `--forced`: each sentence without its last column (the column before it now its last), and
 * that column, which fixes labels (`?` = free).
 */
export function withoutForcedColumn(corpus: Corpus): {
  readonly corpus: Corpus;
  readonly forced: readonly (readonly string[])[];
} {
  const forced: (readonly string[])[] = [];
  const sentences = corpus.sentences.map((sentence) => {
    const columns = sentence.columns.slice(0, -1);
    const last = sentence.columns[sentence.columns.length - 1];
    if (last === undefined || columns.length === 0) {
      throw badInputError(
        `${tokenPlace(sentence, 0)}: --forced: expected the input's columns and then a column of fixed labels (? = free), got one column`,
      );
    }
    forced.push(last);
    const labels = sentence.labels === undefined ? undefined : columns[columns.length - 1];
    const stripped: Sentence = { ...sentence, columns };
    if (labels === undefined) delete stripped.labels;
    else stripped.labels = labels;
    return stripped;
  });
  return { corpus: { ...corpus, sentences }, forced };
}

/**
 * A --forced column as a restriction: `?` leaves a token free, a label fixes it, a set `{A,B}`
 * (the partial-annotation syntax of `train --partial`) allows those; an unknown label names its line.
 */
export function restrictionOf(
  sentence: Sentence,
  forced: readonly string[],
  names: readonly string[],
): LabelRestriction {
  const L = names.length;
  const restriction = new Uint8Array(forced.length * L);
  for (const [i, cell] of forced.entries()) {
    const place = tokenPlace(sentence, i);
    const allowed = parsePartialLabel(cell, place);
    if (allowed === null) {
      restriction.fill(1, i * L, (i + 1) * L);
      continue;
    }
    for (const label of typeof allowed === "string" ? [allowed] : allowed) {
      const id = names.indexOf(label);
      if (id < 0) {
        throw badInputError(
          `${place}: --forced label "${label}" is not one of the model's labels; expected ? (free), a label or a set {A,B} of ${names.slice(0, 20).join(", ")}${names.length > 20 ? ", …" : ""}`,
        );
      }
      restriction[i * L + id] = 1;
    }
  }
  return restriction;
}
