import { CONLLU_FIELDS, type ConlluSentence } from "../formats/conllu.js";
import { DataFormatError } from "../formats/errors.js";

const HEAD = CONLLU_FIELDS.indexOf("HEAD");

/**
 * Checks that every HEAD of a CoNLL-U sentence can be scored: an integer 0…n (a word of the
 * sentence, or 0 for the root). The first that is not is a `DataFormatError` at the word's own
 * line (not the sentence's), `side` ("gold", "predicted") saying which file it is.
 */
export function checkDependencyHeads(sentence: ConlluSentence, side: string): void {
  const heads = sentence.columns[HEAD]!;
  const n = heads.length;
  for (let w = 1; w <= n; w++) {
    const text = heads[w - 1]!;
    if (/^(0|[1-9][0-9]*)$/.test(text) && Number(text) <= n) continue;
    const detail =
      text === "_"
        ? `${side} HEAD _: this word has no head to score; expected an integer 0…${n}`
        : `${side} HEAD ${JSON.stringify(text)}: expected an integer 0…${n} (a word of this sentence, or 0 for the root)`;
    const source = sentence.source;
    if (source === undefined) throw new DataFormatError(side, w, detail, HEAD + 1);
    let extra = 0;
    for (const e of sentence.extraLines) if (e.before <= w - 1) extra++;
    const line = source.line + sentence.comments.length + extra + (w - 1);
    throw new DataFormatError(source.file, line, detail, HEAD + 1);
  }
}
