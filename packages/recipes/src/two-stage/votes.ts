/**
 * Krishnan & Manning (2006)'s non-local votes, from a first stage's labels: per token the
 * majority entity type that the first stage gave the *other* occurrences of the same word in the
 * document (`dtok`), of the same entity string in the document (`dent`, tokens inside a predicted
 * entity only) and of the same word in the whole corpus being tagged (`ctok`).
 */
import { NO_VOTE, VOTE_KINDS } from "@lagrange/chain-crf";
import {
  extractSpans,
  groupByDocument,
  type LabelScheme,
  type Sentence,
  type Span,
} from "@lagrange/datasets";

/** Sentences per pseudo-document of data without document marks (tweets, plain sentences). */
export const VOTE_BLOCK = 20;

/** The outside value of a token vote (other occurrences mostly outside any entity). */
export const OUTSIDE = "O";

/** One sentence as the votes see it: its words and the first stage's entities. */
export interface VotingSentence {
  readonly words: readonly string[];
  /** The first stage's entities (non-overlapping; nested spans: the outermost is used). */
  readonly entities: readonly {
    readonly start: number;
    readonly end: number;
    readonly type: string;
  }[];
  /** Per token what it votes (plain tags: the tag itself); default its entity's type, else O. */
  readonly types?: readonly string[];
}

/** Per sentence, per token: the three votes (a type, `O`, or NO_VOTE), as vote columns. */
export interface SentenceVotes {
  readonly dtok: string[];
  readonly dent: string[];
  readonly ctok: string[];
}

/**
 * The document of each sentence: the data's documents where it marks more than one (or one
 * marked document), else blocks of {@link VOTE_BLOCK} consecutive sentences — data without
 * documents (tweets) has no better unit, and a block is what `jackknifeFolds` deals too.
 */
export function voteDocuments(sentences: readonly Sentence[]): Int32Array {
  const doc = new Int32Array(sentences.length);
  const groups = groupByDocument(sentences);
  if (groups.length === 1 && groups[0]!.document === undefined) {
    for (let i = 0; i < sentences.length; i++) doc[i] = Math.floor(i / VOTE_BLOCK);
    return doc;
  }
  let i = 0;
  groups.forEach((group, g) => {
    for (let k = 0; k < group.sentences.length; k++) doc[i++] = g;
  });
  return doc;
}

/**
 * The outermost entities of a labelling under a scheme (nested children left out; hierarchical
 * labels are IOB2 at every level). A scheme of plain tags (`none`) has no entities: its votes are
 * token votes only, each tag standing for itself.
 */
export function entitiesOf(labels: readonly string[], scheme: LabelScheme): Span[] {
  if (scheme === "none") return [];
  const out: Span[] = [];
  let covered = 0;
  for (const span of extractSpans(labels, scheme === "hierarchical-BIO" ? "IOB2" : scheme)) {
    if (span.start < covered) continue;
    out.push(span);
    covered = span.end;
  }
  return out;
}

/**
 * The value with the most votes once `own` is taken away (`own` undefined: nothing to take
 * away); ties go to an entity type over `O`, then to the type first in code-point order.
 * NO_VOTE when nothing is left.
 */
export function majority(counts: ReadonlyMap<string, number> | undefined, own?: string): string {
  if (counts === undefined) return NO_VOTE;
  let best = NO_VOTE;
  let most = 0;
  for (const [value, n] of counts) {
    const c = value === own ? n - 1 : n;
    if (c <= 0) continue;
    if (c > most || (c === most && (best === OUTSIDE || (value !== OUTSIDE && value < best)))) {
      best = value;
      most = c;
    }
  }
  return best;
}

function bump(table: Map<string, Map<string, number>>, key: string, value: string): void {
  let counts = table.get(key);
  if (counts === undefined) {
    counts = new Map();
    table.set(key, counts);
  }
  counts.set(value, (counts.get(value) ?? 0) + 1);
}

/**
 * The votes of every token, given each sentence's document (`documents[i]`, equal numbers for
 * one document). A word's occurrences are compared exactly as written; an entity's string is its
 * words joined by a space. The occurrence being voted on never votes for itself.
 */
export function computeVotes(
  sentences: readonly VotingSentence[],
  documents: Int32Array,
): SentenceVotes[] {
  const tokenType = sentences.map(({ words, entities, types: given }) => {
    if (given !== undefined) return given;
    const types = new Array<string>(words.length).fill(OUTSIDE);
    for (const e of entities) for (let t = e.start; t < e.end; t++) types[t] = e.type;
    return types;
  });
  const corpus = new Map<string, Map<string, number>>();
  sentences.forEach(({ words }, i) => {
    for (let t = 0; t < words.length; t++) bump(corpus, words[t]!, tokenType[i]![t]!);
  });
  const out: SentenceVotes[] = new Array(sentences.length);
  let from = 0;
  while (from < sentences.length) {
    let to = from + 1;
    while (to < sentences.length && documents[to] === documents[from]) to++;
    const words = new Map<string, Map<string, number>>();
    const strings = new Map<string, Map<string, number>>();
    for (let i = from; i < to; i++) {
      const s = sentences[i]!;
      for (let t = 0; t < s.words.length; t++) bump(words, s.words[t]!, tokenType[i]![t]!);
      for (const e of s.entities) bump(strings, s.words.slice(e.start, e.end).join(" "), e.type);
    }
    for (let i = from; i < to; i++) {
      const s = sentences[i]!;
      const n = s.words.length;
      const dtok = new Array<string>(n);
      const ctok = new Array<string>(n);
      const dent = new Array<string>(n).fill(NO_VOTE);
      for (let t = 0; t < n; t++) {
        const own = tokenType[i]![t]!;
        dtok[t] = majority(words.get(s.words[t]!), own);
        ctok[t] = majority(corpus.get(s.words[t]!), own);
      }
      for (const e of s.entities) {
        const vote = majority(strings.get(s.words.slice(e.start, e.end).join(" ")), e.type);
        for (let t = e.start; t < e.end; t++) dent[t] = vote;
      }
      out[i] = { dtok, dent, ctok };
    }
    from = to;
  }
  return out;
}

/**
 * The sentence with its votes appended as input columns after its own (and before nothing: a
 * gold label column stays the label, since the input view leaves it out by identity).
 */
export function withVoteColumns(sentence: Sentence, votes: SentenceVotes): Sentence {
  return appendColumns(
    sentence,
    VOTE_KINDS.map((kind) => votes[kind]),
  );
}

/** The sentence with input columns added after its own (a value per token each). */
export function appendColumns(sentence: Sentence, added: readonly string[][]): Sentence {
  const columns = [...sentence.columns, ...added];
  const inputColumns =
    sentence.inputColumns === undefined
      ? undefined
      : [...sentence.inputColumns, ...added.map((_, k) => sentence.columns.length + k)];
  return { ...sentence, columns, ...(inputColumns === undefined ? {} : { inputColumns }) };
}
