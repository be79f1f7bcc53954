/**
 * Lexicons mined from training labels (entity string → type), and the jackknife that keeps them
 * honest: a training sentence's attributes come from a lexicon mined from the *other* folds, so the
 * model learns how much a lexicon match is worth for names it has not been trained on, as at test
 * time, instead of learning that every training name is in the lexicon.
 */
import type { LexiconResource } from "@lagrange/chain-crf";
import { extractSpans, type SchemeName, type Sentence } from "@lagrange/datasets";
import { VOTE_BLOCK, voteDocuments } from "../two-stage/votes.js";

/** Lexicon names are `mined-` and the entity type. */
export const MINED_PREFIX = "mined-";

/**
 * Per entity type, the strings labelled with that type more often than with any other in
 * `labelled` (one entry per distinct string; ties go to the type seen first). `keep` leaves
 * sentences out (another fold's).
 */
export function mineEntityLexicons(
  labelled: readonly { readonly tokens: readonly string[]; readonly labels: readonly string[] }[],
  scheme: SchemeName,
  keep: (index: number) => boolean = () => true,
): LexiconResource[] {
  const counts = new Map<string, Map<string, number>>();
  for (let i = 0; i < labelled.length; i++) {
    if (!keep(i)) continue;
    const { tokens, labels } = labelled[i]!;
    for (const span of extractSpans(labels, scheme)) {
      const text = tokens.slice(span.start, span.end).join(" ");
      let byType = counts.get(text);
      if (byType === undefined) {
        byType = new Map();
        counts.set(text, byType);
      }
      byType.set(span.type, (byType.get(span.type) ?? 0) + 1);
    }
  }
  const entries = new Map<string, string[]>();
  for (const [text, byType] of counts) {
    let best = "";
    let most = 0;
    for (const [type, n] of byType) {
      if (n > most) {
        best = type;
        most = n;
      }
    }
    let list = entries.get(best);
    if (list === undefined) {
      list = [];
      entries.set(best, list);
    }
    list.push(text);
  }
  return [...entries.keys()]
    .sort()
    .map((type) => ({ name: `${MINED_PREFIX}${type}`, entries: entries.get(type)!.sort() }));
}

/**
 * The unit of each sentence that a fold takes whole, numbered 0, 1, … in order: documents (the
 * same name recurs within a document, so splitting one would leak it); data without document marks
 * (or with one document) is cut in blocks of 20 sentences, the units two-stage votes use.
 */
export function documentUnits(sentences: readonly Sentence[]): Int32Array {
  const units = voteDocuments(sentences);
  // A single marked document is one unit: cut its blocks instead, or every fold but one is empty.
  if (units.length > 0 && units[units.length - 1] === 0) {
    for (let i = 0; i < units.length; i++) units[i] = Math.floor(i / VOTE_BLOCK);
  }
  return units;
}

/** Fold of each sentence for a jackknife: {@link documentUnits} dealt round-robin. */
export function jackknifeFolds(sentences: readonly Sentence[], folds: number): Int32Array {
  const fold = documentUnits(sentences);
  for (let i = 0; i < fold.length; i++) fold[i] = fold[i]! % folds;
  return fold;
}
