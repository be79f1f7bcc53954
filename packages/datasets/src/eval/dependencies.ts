import { CONLLU_FIELDS, type ConlluSentence } from "../formats/conllu.js";
import type { Sentence } from "../sentence.js";
import { AlignmentError } from "./chunks.js";

const FORM = CONLLU_FIELDS.indexOf("FORM");
const UPOS = CONLLU_FIELDS.indexOf("UPOS");
const HEAD = CONLLU_FIELDS.indexOf("HEAD");
const DEPREL = CONLLU_FIELDS.indexOf("DEPREL");

export interface DependencyEvaluationOptions {
  /**
   * Score punctuation words or leave them out. UD's CoNLL 2017/2018 shared tasks scored every
   * word; CoNLL-X (2006) and the Penn Treebank tradition leave punctuation out. No default: the
   * two conventions differ by a point or more, so the caller says which one a number follows.
   */
  readonly punctuation: "include" | "exclude";
  /**
   * What counts as punctuation (with `punctuation: "exclude"`), always judged on the gold words:
   *
   * - `upos` (default): gold UPOS `PUNCT`. UD tags punctuation explicitly, so this is the
   *   annotators' own call. `SYM` is not punctuation: UD gives it to `$`, `%`, `+`, `=`, emoji,
   *   which head or fill argument positions (`$ 5`, `5 %`) and whose attachment is worth scoring.
   * - `form`: CoNLL-X's `eval.pl` rule, a FORM made only of Unicode punctuation characters
   *   (`\p{P}`): for files whose UPOS is `_` or not UD's (it drops `%` and keeps `$`, being
   *   about characters rather than function).
   */
  readonly punctuationRule?: "upos" | "form";
  /**
   * Compare relations without their subtypes (`nsubj:pass` = `nsubj`), as CoNLL 2018's LAS
   * does. Default false: relations must match in full.
   */
  readonly ignoreSubtypes?: boolean;
}

export interface DependencyEvaluation {
  readonly sentences: number;
  /** Words scored (punctuation left out where excluded). */
  readonly tokens: number;
  /** Punctuation words left out (0 with `punctuation: "include"`). */
  readonly excludedPunctuation: number;
  /** Scored words with the gold head. */
  readonly correctHeads: number;
  /** Scored words with the gold relation, whatever their head. */
  readonly correctRelations: number;
  /** Scored words with both. */
  readonly correctLabelled: number;
  /** Unlabelled attachment score: correctHeads / tokens (0 when nothing is scored). */
  readonly uas: number;
  /** Labelled attachment score: correctLabelled / tokens. */
  readonly las: number;
  /** Label accuracy: correctRelations / tokens. */
  readonly labelAccuracy: number;
  /** Share of sentences whose scored words all have the gold head. */
  readonly completeUnlabelled: number;
  /** Share of sentences whose scored words all have the gold head and relation. */
  readonly completeLabelled: number;
}

/** Unicode punctuation only (eval.pl's `^\p{Punctuation}+$`). */
const PUNCTUATION_FORM = /^\p{P}+$/u;

/**
 * Attachment scores of predicted trees against gold ones, both as CoNLL-U sentences (HEAD and
 * DEPREL of the basic tree; multiword-token and empty-node lines are not words and are not
 * scored). The sentences must line up word for word: same number of sentences, of words, and
 * the same FORMs — anything else is an {@link AlignmentError} naming the sentence, since scores of
 * misaligned files are meaningless.
 */
export function evaluateDependencies(
  gold: readonly Sentence[],
  predicted: readonly Sentence[],
  options: DependencyEvaluationOptions,
): DependencyEvaluation {
  if (options.punctuation !== "include" && options.punctuation !== "exclude") {
    throw new RangeError(
      `punctuation ${JSON.stringify(options.punctuation)}: expected "include" or "exclude"`,
    );
  }
  const exclude = options.punctuation === "exclude";
  const byForm = (options.punctuationRule ?? "upos") === "form";
  const relation = options.ignoreSubtypes === true ? withoutSubtype : (r: string) => r;
  if (gold.length !== predicted.length) {
    throw new AlignmentError(
      `expected as many predicted sentences as gold ones: ${gold.length} gold, ${predicted.length} predicted`,
    );
  }
  let tokens = 0;
  let excludedPunctuation = 0;
  let correctHeads = 0;
  let correctRelations = 0;
  let correctLabelled = 0;
  let completeUnlabelled = 0;
  let completeLabelled = 0;
  for (let s = 0; s < gold.length; s++) {
    const g = gold[s]!;
    const p = predicted[s]!;
    const where = (): string => describeSentence(s, g, p);
    for (const [sentence, side] of [
      [g, "gold"],
      [p, "predicted"],
    ] as const) {
      if (sentence.columns.length !== CONLLU_FIELDS.length) {
        throw new AlignmentError(
          `${where()}: the ${side} sentence has ${sentence.columns.length} columns; expected the 10 CoNLL-U fields`,
        );
      }
    }
    const n = g.columns[FORM]!.length;
    if (p.columns[FORM]!.length !== n) {
      throw new AlignmentError(
        `${where()}: ${n} gold words but ${p.columns[FORM]!.length} predicted`,
      );
    }
    let allHeads = true;
    let allLabelled = true;
    for (let i = 0; i < n; i++) {
      const form = g.columns[FORM]![i]!;
      if (p.columns[FORM]![i] !== form) {
        throw new AlignmentError(
          `${where()}: word ${i + 1} is ${JSON.stringify(form)} in gold but ${JSON.stringify(p.columns[FORM]![i])} predicted`,
        );
      }
      if (exclude && (byForm ? PUNCTUATION_FORM.test(form) : g.columns[UPOS]![i] === "PUNCT")) {
        excludedPunctuation++;
        continue;
      }
      tokens++;
      const headRight = head(g, i, n, "gold", where) === head(p, i, n, "predicted", where);
      const relationRight = relation(g.columns[DEPREL]![i]!) === relation(p.columns[DEPREL]![i]!);
      if (headRight) correctHeads++;
      if (relationRight) correctRelations++;
      if (headRight && relationRight) correctLabelled++;
      allHeads &&= headRight;
      allLabelled &&= headRight && relationRight;
    }
    if (allHeads) completeUnlabelled++;
    if (allLabelled) completeLabelled++;
  }
  const share = (k: number, of: number): number => (of === 0 ? 0 : k / of);
  return {
    sentences: gold.length,
    tokens,
    excludedPunctuation,
    correctHeads,
    correctRelations,
    correctLabelled,
    uas: share(correctHeads, tokens),
    las: share(correctLabelled, tokens),
    labelAccuracy: share(correctRelations, tokens),
    completeUnlabelled: share(completeUnlabelled, gold.length),
    completeLabelled: share(completeLabelled, gold.length),
  };
}

function head(sentence: Sentence, i: number, n: number, side: string, where: () => string): number {
  const text = sentence.columns[HEAD]![i]!;
  const h = /^(0|[1-9][0-9]*)$/.test(text) ? Number(text) : -1;
  if (h < 0 || h > n) {
    throw new AlignmentError(
      `${where()}: word ${i + 1} has ${side} HEAD ${JSON.stringify(text)}; expected an integer 0…${n}`,
    );
  }
  return h;
}

function withoutSubtype(r: string): string {
  const colon = r.indexOf(":");
  return colon < 0 ? r : r.slice(0, colon);
}

/** "sentence 3 (sent_id x; gold g.conllu:12, predicted p.conllu:12)", as much as is known. */
function describeSentence(index: number, gold: Sentence, predicted: Sentence): string {
  const parts: string[] = [];
  const id = "meta" in gold ? (gold as ConlluSentence).meta.sent_id : undefined;
  if (id !== undefined) parts.push(`sent_id ${id}`);
  const places: string[] = [];
  if (gold.source !== undefined) places.push(`gold ${gold.source.file}:${gold.source.line}`);
  if (predicted.source !== undefined) {
    places.push(`predicted ${predicted.source.file}:${predicted.source.line}`);
  }
  if (places.length > 0) parts.push(places.join(", "));
  return `sentence ${index + 1}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`;
}
